// Shapes of tensors and small helpers on them: volume, printing, and the row-major walk over every index.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "spec/error.h"

namespace kriek {

/// Extents, outermost first. Every extent is at least 1.
using Shape = std::vector<std::int64_t>;

/// Product of the extents (1 for rank 0).
std::int64_t volume(const Shape& shape);

inline constexpr std::size_t kMaxViewRank = 8;
/// An index into a tensor of rank at most kMaxViewRank.
using Index = std::array<std::int64_t, kMaxViewRank>;

/// Calls f(index) for every index of `shape` in row-major order (once for rank 0).
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  KRIEK_ASSERT(shape.size() <= kMaxViewRank, "rank ", shape.size(), " exceeds ", kMaxViewRank);
  for (auto e : shape) {
    if (e <= 0) return;
  }
  Index index{};
  while (true) {
    f(static_cast<const std::int64_t*>(index.data()));
    std::size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++index[d] < shape[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (shape.empty()) return;
  }
}

/// Prints "128x256" (the spec-text form).
void print_shape(std::ostream& out, const Shape& shape);
/// The same as a string.
std::string shape_text(const Shape& shape);

}  // namespace kriek
