// The small builders every test folder uses: a TensorSpec in one call and the AVX-512 target the tests are
// written for.
#pragma once

#include <cstdint>
#include <utility>

#include "spec/target.h"
#include "spec/tensor_spec.h"

namespace kriek::testing {

inline const Target& avx512() {
  static const Target t = named_target("avx512");
  return t;
}

/// A TensorSpec of `shape` (dense and aligned) at `level`, in `layout`, with vector size `vs` (VRF).
inline TensorSpec ts(Shape shape, Level level = Level::GL, Layout layout = Layout::row_major(),
                     std::uint32_t vs = 0) {
  TensorSpec t;
  t.shape = std::move(shape);
  t.level = level;
  t.layout = layout;
  t.vector_size = vs;
  return t;
}

}  // namespace kriek::testing
