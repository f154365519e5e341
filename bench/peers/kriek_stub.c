/* A stand-in for a kernel kriek emits, to exercise the kriek runner end to end without running kriek: row-major
 * C = A·B for M = K = N = 64, C overwritten (no zeroing needed by the caller). It keeps a 4 x 64 block of C in
 * an accumulator array per step, plain C that gcc vectorizes for whatever -march it is given (AVX-512 or AVX2);
 * it is correct but makes no claim to speed.
 * Built by build.sh into kriek_stub.so; run: peer_X --sizes 64 --kriek-so kriek_stub.so --kriek-symbol
 * kriek_stub_matmul_64x64x64 */
#define M 64
#define K 64
#define N 64

void kriek_stub_matmul_64x64x64(const float* restrict A, const float* restrict B, float* restrict C) {
  for (int i = 0; i < M; i += 4) {
    float acc[4][N];
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < N; ++j) acc[r][j] = 0.0f;
    for (int k = 0; k < K; ++k)
      for (int r = 0; r < 4; ++r) {
        const float a = A[(i + r) * K + k];
        for (int j = 0; j < N; ++j) acc[r][j] += a * B[k * N + j];
      }
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < N; ++j) C[(i + r) * N + j] = acc[r][j];
  }
}
