// The naive baseline: the i-k-j triple loop a user writes first, compiled -O3 -march=native (and -fopenmp, so
// the 2-thread run splits rows between threads). It is what "no library at all" gets from gcc.
#include <omp.h>

#include <cstring>

#include "driver.h"

namespace bench {
namespace {

void naive_ikj(int M, int K, int N, const float* __restrict A, const float* __restrict B, float* __restrict C) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < M; ++i) {
    float* c = C + std::size_t(i) * N;
    std::memset(c, 0, sizeof(float) * N);
    for (int k = 0; k < K; ++k) {
      float a = A[std::size_t(i) * K + k];
      const float* b = B + std::size_t(k) * N;
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

class NaiveRunner final : public Runner {
 public:
  std::string name() const override { return "naive"; }
  std::string kernel() const override { return "i-k-j gcc -O3 -march=native"; }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    p_ = p, A_ = A, B_ = B, C_ = C;
    omp_set_num_threads(threads);
  }
  void run() override { naive_ikj(p_.M, p_.K, p_.N, A_, B_, C_); }

 private:
  Problem p_;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  v.push_back(std::make_unique<NaiveRunner>());
  return v;
}

}  // namespace bench
