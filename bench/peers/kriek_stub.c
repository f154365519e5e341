/* A stand-in for a kernel kriek will emit, to exercise the kriek runner end to end until codegen exists:
 * row-major C = A·B for M = K = N = 64, AVX-512, C overwritten (no zeroing needed by the caller). It keeps a
 * 4 x 64 block of C in 16 zmm registers per step; it is correct but makes no claim to speed.
 * Built by build.sh into kriek_stub.so; run: peer_X --sizes 64 --kriek-so kriek_stub.so --kriek-symbol
 * kriek_stub_matmul_64x64x64 */
#include <immintrin.h>

#define M 64
#define K 64
#define N 64

void kriek_stub_matmul_64x64x64(const float* restrict A, const float* restrict B, float* restrict C) {
  for (int i = 0; i < M; i += 4) {
    __m512 acc[4][N / 16];
    for (int r = 0; r < 4; ++r)
      for (int v = 0; v < N / 16; ++v) acc[r][v] = _mm512_setzero_ps();
    for (int k = 0; k < K; ++k) {
      __m512 b[N / 16];
      for (int v = 0; v < N / 16; ++v) b[v] = _mm512_loadu_ps(B + k * N + 16 * v);
      for (int r = 0; r < 4; ++r) {
        __m512 a = _mm512_set1_ps(A[(i + r) * K + k]);
        for (int v = 0; v < N / 16; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
      }
    }
    for (int r = 0; r < 4; ++r)
      for (int v = 0; v < N / 16; ++v) _mm512_storeu_ps(C + (i + r) * N + 16 * v, acc[r][v]);
  }
}
