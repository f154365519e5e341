// The naive baselines: the loops a user writes first, compiled -O3 -march=native (and -fopenmp, so the 2-thread
// run splits output rows between threads). They are what "no library at all" gets from gcc.
// Matmul: the i-k-j triple loop (per batch). Conv: per output pixel, the taps inside the image, then the channels,
// then an i-k-j style update of the pixel's F outputs (NHWC image, HWIO filters: the innermost loop is dense).
#include <omp.h>

#include <cstring>

#include "driver.h"

namespace bench {
namespace {

void naive_ikj(const Problem& p, const float* __restrict A, const float* __restrict B, float* __restrict C) {
  const int M = p.M, K = p.K, N = p.N;
#pragma omp parallel for schedule(static) collapse(2)
  for (int b = 0; b < p.batch; ++b)
    for (int i = 0; i < M; ++i) {
      const float* a = A + (std::size_t(b) * M + i) * K;
      float* c = C + (std::size_t(b) * M + i) * N;
      std::memset(c, 0, sizeof(float) * N);
      for (int k = 0; k < K; ++k) {
        const float* bk = B + (std::size_t(b) * K + k) * N;
        for (int j = 0; j < N; ++j) c[j] += a[k] * bk[j];
      }
    }
}

void naive_conv(const Problem& p, const float* __restrict img, const float* __restrict fil, float* __restrict out) {
  const int F = p.N, C = p.C;
#pragma omp parallel for schedule(static) collapse(2)
  for (int n = 0; n < p.batch; ++n)
    for (int oh = 0; oh < p.OH; ++oh)
      for (int ow = 0; ow < p.OW; ++ow) {
        float* o = out + ((std::size_t(n) * p.OH + oh) * p.OW + ow) * F;
        std::memset(o, 0, sizeof(float) * F);
        for (int fh = 0; fh < p.FH; ++fh) {
          const int ih = oh * p.stride + fh - p.pad;
          if (ih < 0 || ih >= p.H) continue;
          for (int fw = 0; fw < p.FW; ++fw) {
            const int iw = ow * p.stride + fw - p.pad;
            if (iw < 0 || iw >= p.W) continue;
            const float* x = img + ((std::size_t(n) * p.H + ih) * p.W + iw) * C;
            const float* w = fil + (std::size_t(fh) * p.FW + fw) * C * F;
            for (int c = 0; c < C; ++c)
              for (int f = 0; f < F; ++f) o[f] += x[c] * w[std::size_t(c) * F + f];
          }
        }
      }
}

class NaiveRunner final : public Runner {
 public:
  std::string name() const override { return "naive"; }
  bool handles(Op) const override { return true; }
  std::string kernel() const override {
    return std::string(p_.op == Op::conv ? "direct loops" : "i-k-j") + " gcc -O3 -march=native";
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    p_ = p, A_ = A, B_ = B, C_ = C;
    omp_set_num_threads(threads);
  }
  void run() override {
    switch (p_.op) {
      case Op::matmul: return naive_ikj(p_, A_, B_, C_);
      case Op::conv: return naive_conv(p_, A_, B_, C_);
    }
  }

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
