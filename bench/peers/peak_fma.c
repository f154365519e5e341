/* Peak-FLOP probe: measures this core's FP32 FMA throughput (AVX-512 when the CPU has it, else AVX2) with 12
 * independent vector FMA chains (4-cycle latency x 2 FMA pipes needs at least 8 in flight; 12 leave headroom),
 * best of 7 runs of >= 100 ms: on a shared machine other work can only slow a run down, so the fastest is the
 * core's capability. Built with -O2 (each probe has its own target attribute); run pinned to one core.
 * Prints "peak_gflops_1core <value>" on the last line, which
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

/* Runs `iters` iterations of 4 FMAs on each of the 12 chains; returns a sum so nothing is dead code. One copy per
 * vector width, each compiled for its ISA; main() calls the widest this CPU has. */
__attribute__((target("avx512f"))) static float fma_chains_512(long iters, float seed) {
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

__attribute__((target("avx2,fma"))) static float fma_chains_256(long iters, float seed) {
  volatile float vx = 0.999999f, vy = 1e-7f;
  __m256 x = _mm256_set1_ps(vx), y = _mm256_set1_ps(vy);
  __m256 acc[CHAINS];
  for (int c = 0; c < CHAINS; ++c) acc[c] = _mm256_set1_ps(seed + (float)c);
  for (long i = 0; i < iters; ++i) {
    for (int u = 0; u < 4; ++u) {
#pragma GCC unroll 12
      for (int c = 0; c < CHAINS; ++c) acc[c] = _mm256_fmadd_ps(acc[c], x, y);
    }
  }
  __m256 s = acc[0];
  for (int c = 1; c < CHAINS; ++c) s = _mm256_add_ps(s, acc[c]);
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}

static int avx512;
static float fma_chains(long iters, float seed) {
  return avx512 ? fma_chains_512(iters, seed) : fma_chains_256(iters, seed);
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  __builtin_cpu_init();
  avx512 = __builtin_cpu_supports("avx512f");
  const int lanes = avx512 ? 16 : 8;
  const double flops_per_iter = 4.0 * CHAINS * lanes * 2; /* 4 FMAs x 12 chains x lanes x (mul + add) */
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
  printf("# 12 %s FMA chains, 7 runs of %ld iterations: min %.1f, median %.1f, max %.1f GFLOP/s (checksum %g)\n",
         avx512 ? "zmm" : "ymm", iters, g[0], g[3], g[6], (double)sink);
  printf("peak_gflops_1core %.1f\n", g[6]);
  return 0;
}
