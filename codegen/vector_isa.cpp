// Intrinsic names of AVX-512 and AVX2 (+FMA) single-precision vectors, and the flags that enable them.
#include "codegen/vector_isa.h"

namespace kriek::codegen {

const VectorIsa* vector_isa(const Target& target) {
  static const VectorIsa avx512{16,
                                "__m512",
                                "_mm512_loadu_ps",
                                "_mm512_storeu_ps",
                                "_mm512_setzero_ps",
                                "_mm512_set1_ps",
                                "_mm512_fmadd_ps",
                                "_mm512_add_ps",
                                "_mm512_mul_ps",
                                "_mm512_sub_ps",
                                "_mm512_max_ps",
                                "_mm512_reduce_add_ps"};
  static const VectorIsa avx2{8,
                              "__m256",
                              "_mm256_loadu_ps",
                              "_mm256_storeu_ps",
                              "_mm256_setzero_ps",
                              "_mm256_set1_ps",
                              "_mm256_fmadd_ps",
                              "_mm256_add_ps",
                              "_mm256_mul_ps",
                              "_mm256_sub_ps",
                              "_mm256_max_ps",
                              ""};
  switch (target.isa) {
    case Isa::avx512: return &avx512;
    case Isa::avx2: return &avx2;
    case Isa::scalar: return nullptr;
  }
  return nullptr;
}

std::vector<std::string> isa_flags(const Target& target) {
  if (target.name == "host") return {"-march=native", "-mprefer-vector-width=512"};
  switch (target.isa) {
    case Isa::avx512: return {"-march=skylake-avx512", "-mprefer-vector-width=512"};
    case Isa::avx2: return {"-march=haswell"};
    // A scalar target models a machine without vectors: keep the compiler from vectorizing behind its back, so
    // kernels and the peak probe measure the same scalar units.
    case Isa::scalar: return {"-fno-tree-vectorize", "-fno-tree-slp-vectorize"};
  }
  return {};
}

}  // namespace kriek::codegen
