// cblas_sgemm runner, built twice: against OpenBLAS (peer_openblas) and against BLIS (-DPEER_BLIS, peer_blis).
// Both libraries export cblas_sgemm, so each gets its own executable. The kernel set they use is chosen when the
// library loads, from OPENBLAS_CORETYPE / BLIS_ARCH_TYPE in the environment: the runner's name says whether one
// was set ("-forced"), and kernel() reports what the library actually picked. A batched matmul is a loop of
// cblas_sgemm calls, one per batch, as a user of these libraries writes it.
#include <cstdlib>

#include "driver.h"

#ifdef PEER_BLIS
#include <blis-openmp/blis.h>
#define PEER_NAME "blis"
#define PEER_ENV "BLIS_ARCH_TYPE"
#else
#include <openblas-pthread/cblas.h>
#define PEER_NAME "openblas"
#define PEER_ENV "OPENBLAS_CORETYPE"
#endif

namespace bench {
namespace {

class BlasRunner final : public Runner {
 public:
  std::string name() const override {
    const char* forced = std::getenv(PEER_ENV);
    return forced && *forced ? PEER_NAME "-forced" : PEER_NAME;
  }
  bool handles(Op op) const override { return op == Op::matmul; }
  std::string kernel() const override {
    const char* forced = std::getenv(PEER_ENV);
    std::string env = forced && *forced ? std::string(" (" PEER_ENV "=") + forced + ")" : "";
#ifdef PEER_BLIS
    return std::string(bli_arch_string(bli_arch_query_id())) + env;
#else
    return std::string(openblas_get_corename()) + env;
#endif
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    p_ = p, A_ = A, B_ = B, C_ = C;
#ifdef PEER_BLIS
    bli_thread_set_num_threads(threads);
#else
    openblas_set_num_threads(threads);
#endif
  }
  void run() override {
    const std::size_t a = std::size_t(p_.M) * p_.K, b = std::size_t(p_.K) * p_.N, c = std::size_t(p_.M) * p_.N;
    for (int i = 0; i < p_.batch; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p_.M, p_.N, p_.K, 1.0f, A_ + i * a, p_.K, B_ + i * b,
                  p_.N, 0.0f, C_ + i * c, p_.N);
  }

 private:
  Problem p_;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  v.push_back(std::make_unique<BlasRunner>());
  return v;
}

}  // namespace bench
