// Offsets, elements and registers of generator views (see c_view.h).
#include "codegen/c_view.h"

#include <numeric>

#include "spec/error.h"

namespace kriek::codegen {
namespace {

/// Position of `index` in the buffer, per buffer dimension (the view's dimensions walk it as `dims` says).
Coord position(const CView& v, const Coord& index) {
  KRIEK_ASSERT(index.size() == v.rank(), "index of rank ", index.size(), " into a view of rank ", v.rank());
  Coord pos = v.origin;
  for (std::size_t d = 0; d < v.rank(); ++d) {
    if (v.dims.empty()) pos[d] = pos[d] + index[d];
    else pos[v.dims[d].dim] = pos[v.dims[d].dim] + index[d] * v.dims[d].step;
  }
  return pos;
}

/// Row-major offset of `pos` over the buffer's dimensions other than `skip` (none when skip >= rank).
Affine row_major_offset(const Shape& buffer, const Coord& pos, std::size_t skip) {
  Affine off;
  for (std::size_t d = 0; d < buffer.size(); ++d) {
    if (d != skip) off = off * buffer[d] + pos[d];
  }
  return off;
}

std::int64_t product_except(const Shape& shape, std::size_t skip) {
  std::int64_t n = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) n *= d == skip ? 1 : shape[d];
  return n;
}

}  // namespace

Storage storage_of(Level l) {
  switch (l) {
    case Level::RF: return Storage::scalar_registers;
    case Level::VRF: return Storage::vector_registers;
    case Level::GL:
    case Level::L2:
    case Level::L1: return Storage::memory;
  }
  KRIEK_ASSERT(false, "no storage for level ", static_cast<int>(l));
  return Storage::memory;
}

CView CView::sub(const Coord& offset, const Shape& extents) const {
  KRIEK_ASSERT(offset.size() == rank() && extents.size() == rank(), "sub-view of rank ", extents.size(),
               " of a view of rank ", rank());
  CView v = *this;
  for (std::size_t d = 0; d < rank(); ++d) {
    if (dims.empty()) v.origin[d] = origin[d] + offset[d];
    else v.origin[dims[d].dim] = v.origin[dims[d].dim] + offset[d] * dims[d].step;
    KRIEK_ASSERT(extents[d] <= shape[d], "sub-view extent ", extents[d], " exceeds ", shape[d], " in dim ", d);
  }
  v.shape = extents;
  return v;
}

CView whole(Storage storage, std::string base, const Shape& shape, const Layout& layout, std::uint32_t vector_size) {
  return CView{storage, std::move(base), shape, layout, zeros(shape.size()), shape, vector_size, {}};
}

std::optional<Affine> affine_offset(const CView& v, const Coord& index) {
  const Coord pos = position(v, index);
  switch (v.layout.kind) {
    case Layout::Kind::row_major: return row_major_offset(v.buffer, pos, v.buffer.size());
    case Layout::Kind::col_major: {
      Affine off;
      for (std::size_t d = v.buffer.size(); d-- > 0;) off = off * v.buffer[d] + pos[d];
      return off;
    }
    case Layout::Kind::blocked: {
      const std::size_t dim = v.layout.dim;
      const std::int64_t b = v.layout.block;
      const Affine& p = pos[dim];
      const Affine variable_part = p - Affine(p.constant());
      if (!variable_part.divisible_by(b) || p.constant() < 0) return std::nullopt;
      const Affine panel = variable_part.divided_by(b) + Affine(p.constant() / b);
      const Affine rest = row_major_offset(v.buffer, pos, dim);
      return (panel * product_except(v.buffer, dim) + rest) * b + Affine(p.constant() % b);
    }
  }
  return std::nullopt;
}

BlockedOffset blocked_offset(const CView& v, const Coord& index) {
  KRIEK_ASSERT(v.layout.kind == Layout::Kind::blocked, "a blocked offset into a ", v.base, " that is not blocked");
  const Coord pos = position(v, index);
  const std::size_t dim = v.layout.dim;
  return BlockedOffset{pos[dim], v.layout.block, product_except(v.buffer, dim), row_major_offset(v.buffer, pos, dim)};
}

std::string offset_text(const CView& v, const Coord& index) {
  if (auto a = affine_offset(v, index)) return a->text();
  // Blocked with a coordinate that is not a known multiple of the block: divide at run time.
  const BlockedOffset o = blocked_offset(v, index);
  const std::string b = std::to_string(o.block);
  const std::string p = "(" + o.coordinate.text() + ")";
  return "((" + p + " / " + b + ") * " + std::to_string(o.panel) + " + " + o.rest.text() + ") * " + b + " + " + p +
         " % " + b;
}

std::string element(const CView& v, const Coord& index) {
  KRIEK_ASSERT(v.storage != Storage::vector_registers, "element access into vector registers ", v.base);
  return v.base + "[" + offset_text(v, index) + "]";
}

std::string address(const CView& v, const Coord& index) {
  KRIEK_ASSERT(v.storage == Storage::memory, "the address of a register element ", v.base);
  return "(" + v.base + " + " + offset_text(v, index) + ")";
}

namespace {

/// A blocked view that walks only its block dimension, one element at a time, from a coordinate that cannot leave
/// its block: the coordinate is g·s + c for g = gcd(block, its coefficients), so the run stays in the g-aligned
/// chunk it starts in, which lies in one block, when c mod g plus the extent is at most g (e.g. 4 of a panel of 8
/// at 4·i).
bool within_one_panel(const CView& v) {
  if (v.layout.kind != Layout::Kind::blocked) return false;
  const std::size_t dim = v.layout.dim;
  std::int64_t extent = 1;
  for (std::size_t d = 0; d < v.rank(); ++d) {
    if (v.shape[d] == 1) continue;
    const bool walks_block = v.dims.empty() ? d == dim : v.dims[d].dim == dim && v.dims[d].step == 1;
    if (!walks_block || extent != 1) return false;
    extent = v.shape[d];
  }
  const Affine p = position(v, zeros(v.rank()))[dim];
  std::int64_t g = v.layout.block;
  for (const auto& [name, k] : p.terms()) g = std::gcd(g, k < 0 ? -k : k);
  const std::int64_t c = ((p.constant() % g) + g) % g;
  return c + extent <= g;
}

}  // namespace

bool is_dense_run(const CView& v) {
  if (within_one_panel(v)) return true;
  const std::size_t rank = v.rank();
  std::vector<std::int64_t> at(rank, 0);
  std::optional<Affine> first;
  for (std::int64_t p = 0;; ++p) {
    Coord index(at.begin(), at.end());
    const auto off = affine_offset(v, index);
    if (!off) return false;
    if (!first) first = off;
    const Affine diff = *off - *first;
    if (!diff.is_constant() || diff.constant() != p) return false;
    std::size_t d = rank;
    while (d > 0 && ++at[d - 1] == v.shape[d - 1]) at[--d] = 0;
    if (d == 0) return true;
  }
}

std::int64_t register_index(const CView& v) {
  KRIEK_ASSERT(v.storage == Storage::vector_registers, v.base, " is not in vector registers");
  const std::int64_t lanes = volume(v.shape);
  KRIEK_ASSERT(lanes == v.vector_size || (lanes < v.vector_size && partial_register(v)), "a view of ", lanes,
               " elements is not one register of ", v.vector_size, " nor the partial last register of a row");
  const auto first = affine_offset(v, zeros(v.rank()));
  KRIEK_ASSERT(first && first->is_constant(), "register view ", v.base, " at a variable offset: the loop over it ",
               "must be unrolled");
  KRIEK_ASSERT(first->constant() % v.vector_size == 0 && is_dense_run(v), "view of ", v.base,
               " at offset ", first->constant(), " does not fill one register in lane order");
  return first->constant() / v.vector_size;
}

bool partial_register(const CView& v) {
  // Register panels are never reshaped (no conv output is in them), so view and buffer dimensions agree.
  if (v.storage != Storage::vector_registers || v.rank() == 0 || !v.dims.empty()) return false;
  const std::size_t last = v.rank() - 1;
  if (v.layout != Layout::blocked(static_cast<std::uint8_t>(last), v.vector_size)) return false;
  if (volume(v.shape) >= v.vector_size || volume(v.shape) != v.shape.back()) return false;
  // The row's end: the lanes after the view are the panel's padding.
  const Coord end = position(v, Coord(v.rank(), Affine(0)));
  return end[last].is_constant() && end[last].constant() + v.shape.back() == v.buffer[last];
}

std::string whole_register(const CView& v) { return v.base + "_" + std::to_string(register_index(v)); }

Coord zeros(std::size_t rank) { return Coord(rank, Affine(0)); }

Coord constant(const Shape& at) {
  Coord c;
  for (std::int64_t o : at) c.push_back(Affine(o));
  return c;
}

}  // namespace kriek::codegen
