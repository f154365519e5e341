// Offsets and sizes of the layouts.
#include "spec/layout.h"

#include "spec/error.h"

namespace kriek {

std::int64_t Layout::buffer_elements(const Shape& shape) const {
  if (kind != Kind::blocked) return volume(shape);
  KRIEK_ASSERT(dim < shape.size() && block > 0, "blocked layout dim ", int(dim), " of rank ", shape.size());
  std::int64_t n = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    n *= d == dim ? (shape[d] + block - 1) / block * block : shape[d];
  }
  return n;
}

std::int64_t Layout::offset(const Shape& buffer, const std::int64_t* index) const {
  const std::size_t rank = buffer.size();
  std::int64_t off = 0;
  switch (kind) {
    case Kind::row_major:
      for (std::size_t d = 0; d < rank; ++d) off = off * buffer[d] + index[d];
      return off;
    case Kind::col_major:
      for (std::size_t d = rank; d-- > 0;) off = off * buffer[d] + index[d];
      return off;
    case Kind::blocked: {
      const std::int64_t b = block;
      off = index[dim] / b;
      for (std::size_t d = 0; d < rank; ++d) {
        if (d != dim) off = off * buffer[d] + index[d];
      }
      return off * b + index[dim] % b;
    }
  }
  return 0;
}

std::size_t Layout::innermost_dim(std::size_t rank) const {
  switch (kind) {
    case Kind::row_major: return rank - 1;
    case Kind::col_major: return 0;
    case Kind::blocked: return dim;
  }
  return rank - 1;
}

bool Layout::same_placement(const Layout& other, const Shape& shape) const {
  if (*this == other) return true;
  // Layouts differ in name only when every dimension they order differently has extent 1.
  auto canonical = [&](const Layout& l) {
    std::size_t non_unit = 0;
    for (auto e : shape) non_unit += e > 1;
    if (non_unit <= 1 && l.kind != Kind::blocked) return Layout::row_major();
    if (l.kind == Kind::blocked && l.dim + 1u == shape.size() && shape[l.dim] == static_cast<std::int64_t>(l.block)) {
      return Layout::row_major();  // one panel of the innermost dimension, unpadded
    }
    if (l.kind == Kind::blocked && shape[l.dim] <= static_cast<std::int64_t>(l.block)) {
      // One panel: the blocked dimension is innermost, others row-major.
      bool others_unit = true;
      for (std::size_t d = 0; d < shape.size(); ++d) others_unit &= d == l.dim || shape[d] == 1;
      if (others_unit) return Layout::row_major();
    }
    return l;
  };
  return canonical(*this) == canonical(other);
}

std::string layout_text(const Layout& l) {
  switch (l.kind) {
    case Layout::Kind::row_major: return "row";
    case Layout::Kind::col_major: return "col";
    case Layout::Kind::blocked: return "blk" + std::to_string(l.dim) + ":" + std::to_string(l.block);
  }
  return "?";
}

}  // namespace kriek
