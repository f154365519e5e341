// Shapes of tensors and small helpers on them.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace kriek {

/// Extents, outermost first. Every extent is at least 1.
using Shape = std::vector<std::int64_t>;

/// Product of the extents (1 for rank 0).
std::int64_t volume(const Shape& shape);

/// Prints "128x256" (the spec-text form).
void print_shape(std::ostream& out, const Shape& shape);
/// The same as a string.
std::string shape_text(const Shape& shape);

}  // namespace kriek
