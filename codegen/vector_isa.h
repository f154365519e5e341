// The vector instruction set the emitted C uses for a target: the register type and the intrinsics of each
// vector kernel (AVX-512 or AVX2 with FMA, from <immintrin.h>), and the compiler flags that enable them.
#pragma once

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
};

/// The ISA of the target's vector registers; nullptr for scalar targets.
const VectorIsa* vector_isa(const Target& target);

/// Compiler flags that enable the target's ISA: `-march=native` for the host, a representative -march otherwise,
/// and no auto-vectorization for scalar targets.
std::vector<std::string> isa_flags(const Target& target);

}  // namespace kriek::codegen
