/* A C consumer of the test library `kernels` (shared): calls its kernels and checks them against naive loops.
 * Prints "ok" and exits 0, or names the first wrong element and exits 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

enum { M = 16, K = 24, N = 8, R = 8, C = 16, BIG = 2048 * 2048 };

static int check(const char *what, const float *got, const float *want, int n, float tolerance) {
  for (int i = 0; i < n; ++i) {
    if (fabsf(got[i] - want[i]) > tolerance) {
      printf("%s: element %d is %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  }
  return 0;
}

int main(void) {
  static float a[M * K], b[K * N], c[M * N], want[M * N], x[R * C], y[R * C], ywant[R * C];
  srand(7);
  for (int i = 0; i < M * K; ++i) a[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < R * C; ++i) x[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += a[m * K + k] * b[k * N + n];
      want[m * N + n] = s;
    }
  }
  for (int i = 0; i < R * C; ++i) ywant[i] = x[i] > 0 ? x[i] : 0;
  mm(a, b, c);
  relu_rows(x, y);
  if (check("mm", c, want, M * N, 1e-4f) || check("relu_rows", y, ywant, R * C, 0)) return 1;
  /* relu_big runs parallel: on OpenMP threads or kriek's runtime, inside the library either way. */
  float *big = malloc(sizeof(float) * BIG), *bigout = malloc(sizeof(float) * BIG), *bigwant = malloc(sizeof(float) * BIG);
  if (!big || !bigout || !bigwant) return 1;
  for (int i = 0; i < BIG; ++i) {
    big[i] = (float)rand() / RAND_MAX - 0.5f;
    bigwant[i] = big[i] > 0 ? big[i] : 0;
  }
  relu_big(big, bigout);
  if (check("relu_big", bigout, bigwant, BIG, 0)) return 1;
  free(big);
  free(bigout);
  free(bigwant);
  printf("ok\n");
  return 0;
}
