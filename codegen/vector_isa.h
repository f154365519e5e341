// The vector instruction set the emitted C uses for a target: the register type and the intrinsics of each
// vector kernel (AVX-512 or AVX2 with FMA, from <immintrin.h>), and the compiler flags that enable them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/target.h"

namespace kriek::codegen {

struct VectorIsa {
  int width = 0;             ///< f32 lanes per register
  std::string type;          ///< e.g. "__m512"
  std::string load, store;   ///< unaligned load/store: load(const float *), store(float *, v)
  std::string zero;          ///< setzero()
  std::string broadcast;     ///< set1(float)
  std::string fmadd;         ///< fmadd(a, b, c) = a*b + c
  std::string add, mul, sub, max;
  std::string reduce_add;    ///< horizontal sum to a float; empty: store the lanes and add them
  bool opmask = false;       ///< masks are opmask registers (AVX-512), else vectors of lane masks (AVX2)
};

/// A load of the first `lanes` elements at `address` into a register whose other lanes are zero (the partial last
/// register of a row in register panels): `_mm256_maskload_ps` or `_mm512_maskz_loadu_ps`.
std::string masked_load(const VectorIsa& isa, const std::string& address, std::int64_t lanes);
/// A statement that stores the first `lanes` lanes of `value` to `address`, leaving the memory after them alone:
/// one opmask store on AVX-512, impl/kernel.h's partial_register_stores plain stores (4, 2, 1 lanes) on AVX2.
std::string masked_store(const VectorIsa& isa, const std::string& address, std::int64_t lanes, const std::string& value);

/// The ISA of the target's vector registers; nullptr for scalar targets.
const VectorIsa* vector_isa(const Target& target);

/// Compiler flags that enable the target's ISA: `-march=native` for the host, a representative -march otherwise,
/// and no auto-vectorization for scalar targets.
std::vector<std::string> isa_flags(const Target& target);

}  // namespace kriek::codegen
