/* Peak-FLOP probe: measures this core's FP32 FMA throughput (AVX-512 when the CPU has it, else AVX2) with 12
 * independent vector FMA chains (4-cycle latency x 2 FMA pipes needs at least 8 in flight; 12 leave headroom),
 * best of 7 runs of >= 100 ms: on a shared machine other work can only slow a run down, so the fastest is the
 * core's capability. Built with -O2 (each probe has its own target attribute); run pinned to one core.
 * Prints "peak_gflops_1core <value>" on the last line, which
 * scripts/bench_kernels.sh passes to the drivers so ratios are to the measured, not the nominal, peak. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHAINS 12

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* FMA_CHAINS(NAME, ISA, BYTES) defines NAME(iters, seed): `iters` iterations of 4 FMAs on each of the 12 chains
 * of BYTES-wide vectors, compiled for ISA; it returns a sum so nothing is dead code. GNU C contracts a * x + y
 * into one FMA instruction. One copy per vector width; main() calls the widest this CPU has. */
#define FMA_CHAINS(NAME, ISA, BYTES)                                                  \
  __attribute__((target(ISA))) static float NAME(long iters, float seed) {           \
    typedef float vec __attribute__((vector_size(BYTES)));                           \
    volatile float vx = 0.999999f, vy = 1e-7f;                                       \
    const vec x = (vec){0} + vx, y = (vec){0} + vy;                                  \
    vec acc[CHAINS];                                                                 \
    for (int c = 0; c < CHAINS; ++c) acc[c] = (vec){0} + (seed + (float)c);         \
    for (long i = 0; i < iters; ++i) {                                               \
      for (int u = 0; u < 4; ++u) {                                                  \
        _Pragma("GCC unroll 12") for (int c = 0; c < CHAINS; ++c) acc[c] = acc[c] * x + y; \
      }                                                                              \
    }                                                                                \
    float sum = 0;                                                                   \
    for (int c = 0; c < CHAINS; ++c)                                                 \
      for (int l = 0; l < (int)(BYTES / sizeof(float)); ++l) sum += acc[c][l];       \
    return sum;                                                                      \
  }
FMA_CHAINS(fma_chains_512, "avx512f", 64)
FMA_CHAINS(fma_chains_256, "avx2,fma", 32)

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
