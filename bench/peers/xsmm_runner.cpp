// libxsmm 1.17 runner: a JIT-generated small-matrix kernel (libxsmm_smmdispatch), linked statically. libxsmm is
// column-major, so row-major C = A·B is computed as column-major Cᵀ = Bᵀ·Aᵀ (the same bytes, no copies). Its
// kernel has no cache blocking, so the runner takes only problems whose B (K x N) is at most 257 x 257 and
// streams over M; with 2 threads each thread runs the kernel on its own block of rows of C. A batched matmul
// loops over the batches. Kernel generation (JIT) happens in prepare() and is excluded from the timing.
#include <omp.h>

#include <libxsmm.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "driver.h"

namespace bench {
namespace {

constexpr int kMaxKN = 257;

class XsmmRunner final : public Runner {
 public:
  XsmmRunner() { libxsmm_init(); }
  std::string name() const override { return "libxsmm"; }
  bool handles(Op op) const override { return op == Op::matmul; }
  std::string kernel() const override { return std::string("JIT ") + libxsmm_get_target_arch(); }
  std::string excluded() const override { return "JIT code generation"; }
  std::string unsupported(const Problem& p, int) const override {
    if (p.K > kMaxKN || p.N > kMaxKN) return "no cache blocking: needs K, N <= 257";
    return "";
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    p_ = p, A_ = A, B_ = B, C_ = C;
    threads_ = std::min(threads, p.M);
    rows_ = (p.M + threads_ - 1) / threads_;
    full_ = dispatch(rows_);
    int last = p.M - rows_ * (threads_ - 1);
    tail_ = last == rows_ ? full_ : dispatch(last);
  }
  void run() override {
    const std::size_t a = std::size_t(p_.M) * p_.K, b = std::size_t(p_.K) * p_.N, c = std::size_t(p_.M) * p_.N;
    for (int i = 0; i < p_.batch; ++i) {
#pragma omp parallel for num_threads(threads_) schedule(static, 1) if (threads_ > 1)
      for (int t = 0; t < threads_; ++t) {
        std::size_t r0 = std::size_t(t) * rows_;
        // Column-major: C^T[N, rows] = B^T[N, K] * A^T[K, rows], with leading dimensions N, K, N.
        (t == threads_ - 1 ? tail_ : full_)(B_ + i * b, A_ + i * a + r0 * p_.K, C_ + i * c + r0 * p_.N);
      }
    }
  }

 private:
  libxsmm_smmfunction dispatch(int rows) const {
    libxsmm_blasint m = p_.N, n = rows, k = p_.K, lda = p_.N, ldb = p_.K, ldc = p_.N;
    float alpha = 1.0f, beta = 0.0f;
    int flags = LIBXSMM_GEMM_FLAG_BETA_0, prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
    libxsmm_smmfunction f = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &prefetch);
    if (!f) {
      std::fprintf(stderr, "error: libxsmm generated no kernel for %s\n", p_.text().c_str());
      std::exit(1);
    }
    return f;
  }

  Problem p_;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
  int threads_ = 1, rows_ = 0;
  libxsmm_smmfunction full_ = nullptr, tail_ = nullptr;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  v.push_back(std::make_unique<XsmmRunner>());
  return v;
}

}  // namespace bench
