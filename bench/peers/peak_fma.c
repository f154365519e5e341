/* Peak-FLOP probe: measures this core's FP32 AVX-512 FMA throughput with 12 independent zmm FMA chains
 * (4-cycle latency x 2 FMA pipes needs at least 8 in flight; 12 leave headroom), best of 7 runs of >= 100 ms:
 * on a shared machine other work can only slow a run down, so the fastest is the core's capability.
 * Built with -O2 -mavx512f; run pinned to one core. Prints "peak_gflops_1core <value>" on the last line, which
 * scripts/bench_kernels.sh passes to the drivers so ratios are to the measured, not the nominal, peak. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHAINS 12

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs `iters` iterations of 4 FMAs on each of the 12 chains; returns a sum so nothing is dead code. */
static float fma_chains(long iters, float seed) {
  volatile float vx = 0.999999f, vy = 1e-7f;
  __m512 x = _mm512_set1_ps(vx), y = _mm512_set1_ps(vy);
  __m512 acc[CHAINS];
  for (int c = 0; c < CHAINS; ++c) acc[c] = _mm512_set1_ps(seed + (float)c);
  for (long i = 0; i < iters; ++i) {
    for (int u = 0; u < 4; ++u) {
#pragma GCC unroll 12
      for (int c = 0; c < CHAINS; ++c) acc[c] = _mm512_fmadd_ps(acc[c], x, y);
    }
  }
  __m512 s = acc[0];
  for (int c = 1; c < CHAINS; ++c) s = _mm512_add_ps(s, acc[c]);
  return _mm512_reduce_add_ps(s);
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  const double flops_per_iter = 4.0 * CHAINS * 16 * 2; /* 4 FMAs x 12 chains x 16 lanes x (mul + add) */
  long iters = 1000;
  float sink = 0;
  /* Warm up (frequency ramp) and size a run to >= 100 ms. */
  for (;;) {
    double t0 = now_s();
    sink += fma_chains(iters, 1.0f);
    if (now_s() - t0 >= 0.1) break;
    iters *= 2;
  }
  double g[7];
  for (int r = 0; r < 7; ++r) {
    double t0 = now_s();
    sink += fma_chains(iters, (float)r);
    g[r] = flops_per_iter * (double)iters / (now_s() - t0) / 1e9;
  }
  qsort(g, 7, sizeof g[0], cmp);
  printf("# 12 zmm FMA chains, 7 runs of %ld iterations: min %.1f, median %.1f, max %.1f GFLOP/s (checksum %g)\n",
         iters, g[0], g[3], g[6], (double)sink);
  printf("peak_gflops_1core %.1f\n", g[6]);
  return 0;
}
