// A C++ consumer of the test library `kernels` (static): the header's extern "C" guards make the kernels callable
// from C++; checks them against naive loops. Prints "ok" and exits 0, or names the first wrong element and exits 1.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels.h"

int main() {
  constexpr int M = 16, K = 24, N = 8;
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(M * K), b(K * N), c(M * N, -1), want(M * N, 0);
  for (float& v : a) v = dist(gen);
  for (float& v : b) v = dist(gen);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      for (int n = 0; n < N; ++n) want[m * N + n] += a[m * K + k] * b[k * N + n];
  mm(a.data(), b.data(), c.data());
  for (int i = 0; i < M * N; ++i) {
    if (std::fabs(c[i] - want[i]) > 1e-4f) {
      std::printf("mm: element %d is %g, expected %g\n", i, c[i], want[i]);
      return 1;
    }
  }
  // relu_big runs parallel; from the static library, its runtime (OpenMP, or kriek's own threads) comes with the
  // package.
  std::vector<float> big(2048 * 2048), big_out(big.size());
  for (float& v : big) v = dist(gen);
  relu_big(big.data(), big_out.data());
  for (std::size_t i = 0; i < big.size(); ++i) {
    if (big_out[i] != std::max(big[i], 0.0f)) {
      std::printf("relu_big: element %zu is %g, expected %g\n", i, big_out[i], std::max(big[i], 0.0f));
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
