// Intrinsic names of AVX-512 and AVX2 (+FMA) single-precision vectors, and the flags that enable them.
#include "codegen/vector_isa.h"

#include "impl/kernel.h"

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
                                "_mm512_reduce_add_ps",
                                true};
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
                              "",
                              false};
  switch (target.isa) {
    case Isa::avx512: return &avx512;
    case Isa::avx2: return &avx2;
    case Isa::scalar: return nullptr;
  }
  return nullptr;
}

namespace {

/// The mask of the first `lanes` lanes: an opmask constant, or an integer vector whose active lanes are -1.
std::string lane_mask(const VectorIsa& isa, std::int64_t lanes) {
  if (isa.opmask) return "(__mmask" + std::to_string(isa.width) + ")" + std::to_string((1ull << lanes) - 1) + "u";
  std::string mask = "_mm256_setr_epi32(";
  for (int i = 0; i < isa.width; ++i) mask += std::string(i ? ", " : "") + (i < lanes ? "-1" : "0");
  return mask + ")";
}

}  // namespace

std::string masked_load(const VectorIsa& isa, const std::string& address, std::int64_t lanes) {
  if (isa.opmask) return "_mm512_maskz_loadu_ps(" + lane_mask(isa, lanes) + ", " + address + ")";
  return "_mm256_maskload_ps(" + address + ", " + lane_mask(isa, lanes) + ")";
}

std::string masked_store(const VectorIsa& isa, const std::string& address, std::int64_t lanes, const std::string& value) {
  if (isa.opmask) return "_mm512_mask_storeu_ps(" + address + ", " + lane_mask(isa, lanes) + ", " + value + ");";
  // Plain stores of 4, 2 and 1 lanes from the low half, then the high half (impl/kernel.h says why).
  std::string out = "{ float *kriek_pm = " + address + "; __m128 kriek_rm = _mm256_castps256_ps128(" + value + ");";
  std::int64_t at = 0;
  for (std::int64_t piece : partial_register_stores(lanes, false)) {
    const std::string to = "kriek_pm + " + std::to_string(at);
    switch (piece) {
      case 4: out += " _mm_storeu_ps(" + to + ", kriek_rm); kriek_rm = _mm256_extractf128_ps(" + value + ", 1);"; break;
      case 2: out += " _mm_storel_pi((__m64 *)(" + to + "), kriek_rm); kriek_rm = _mm_movehl_ps(kriek_rm, kriek_rm);"; break;
      case 1: out += " _mm_store_ss(" + to + ", kriek_rm);"; break;
    }
    at += piece;
  }
  return out + " }";
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
