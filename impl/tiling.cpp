// Contiguity and alignment of tiles.
#include "impl/tiling.h"

#include <boost/container/static_vector.hpp>

#include "spec/error.h"

namespace kriek {
namespace {

using DimOrder = boost::container::static_vector<std::size_t, kMaxViewRank>;

/// Dimensions in memory order, outermost first, for row- and column-major layouts.
DimOrder physical_order(const Layout& layout, std::size_t rank) {
  DimOrder order(rank);
  for (std::size_t i = 0; i < rank; ++i) order[i] = layout.kind == Layout::Kind::col_major ? rank - 1 - i : i;
  return order;
}

/// A blocked tensor's tile that lies inside one block of `t`'s buffer: one gap-free range. Tiles start at multiples
/// of `step`, and `t` itself at a block boundary when it is aligned: 64 bytes hold a whole number of blocks, or a
/// block is whole lines and a blocked tile is aligned only at a block boundary (tile_tensor below).
bool within_one_block(const TensorSpec& t, const Shape& shape, const Shape& step) {
  if (t.layout.kind != Layout::Kind::blocked || !t.aligned) return false;
  const std::size_t dim = t.layout.dim;
  const std::int64_t block = t.layout.block;
  const std::int64_t block_bytes = block * static_cast<std::int64_t>(dtype_bytes(t.dtype));
  if (64 % block_bytes != 0 && block_bytes % 64 != 0) return false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d != dim && shape[d] != 1) return false;
  }
  return shape[dim] <= step[dim] && shape[dim] <= block && (step[dim] % block == 0 || block % step[dim] == 0);
}

/// True when `t` is blocked along its innermost dimension in panels of whole registers of `vector_size` and starts
/// at a panel boundary (aligned): no register's elements straddle two panels. The rule register_rows_dense and
/// register_panels_dense share.
bool whole_register_panels(const TensorSpec& t, std::uint32_t vector_size) {
  return t.layout.kind == Layout::Kind::blocked && t.layout.dim + 1u == t.rank() &&
         t.layout.block % vector_size == 0 && t.aligned && 64 % (vector_size * dtype_bytes(t.dtype)) == 0;
}

/// The run dimensions of a row-major tile of shape `shape` of `t`: its innermost dimensions that are whole in `t`
/// and the next one, as far as `t`'s own runs reach, less outer ones of extent 1 (which make no run longer: one
/// Spec, not two, for a strip of single pixels).
std::uint8_t tile_run_dims(const TensorSpec& t, const Shape& shape) {
  if (t.layout.kind != Layout::Kind::row_major) return 1;
  const std::size_t rank = shape.size();
  std::size_t whole = 0;
  while (whole < rank && shape[rank - 1 - whole] == t.shape[rank - 1 - whole]) ++whole;
  std::size_t dims = std::max<std::size_t>(1, std::min(t.dense_dims(), whole + 1));
  while (dims > 1 && shape[rank - dims] == 1) --dims;
  return static_cast<std::uint8_t>(dims);
}

/// True when a tile of shape `shape` (at multiples of `step`) of `t` is one gap-free range of memory: one element;
/// within one block of a blocked t; or a range within one of t's runs (all of t when t is contiguous; in a
/// row-major placement its run_dims innermost dimensions, else along its innermost one alone): inner dimensions
/// whole, one partial, outer ones of extent 1 (tile_is_contiguous). A dense t whose layout places its elements
/// where row-major does (one panel of blk1:4 over 4 columns, a column-major 1x3x1) tiles as a row-major one:
/// vec_load and vec_store reach whatever move_to let into VRF.
bool tile_in_one_run(const TensorSpec& t, const Shape& shape, const Shape& step) {
  if (volume(shape) == 1 || within_one_block(t, shape, step)) return true;
  if (t.contiguous && tile_is_contiguous(t.shape, shape, t.layout)) return true;
  const bool row_major_placed = t.layout.kind == Layout::Kind::row_major ||
                                (t.contiguous && t.layout.same_placement(Layout::row_major(), t.shape));
  if (!row_major_placed) return is_unit_stride_run(shape, t.layout) && tile_is_contiguous(t.shape, shape, t.layout);
  const auto dims = static_cast<std::ptrdiff_t>(t.dense_dims());
  const auto outer = shape.end() - dims;  // the dimensions beyond one run
  return std::all_of(shape.begin(), outer, [](std::int64_t e) { return e == 1; }) &&
         tile_is_contiguous(Shape(t.shape.end() - dims, t.shape.end()), Shape(outer, shape.end()), Layout::row_major());
}

}  // namespace

bool whole_lines(std::int64_t elements, Dtype dtype) {
  return (elements * static_cast<std::int64_t>(dtype_bytes(dtype))) % 64 == 0;
}

bool is_unit_stride_run(const Shape& shape, const Layout& layout) {
  if (layout.kind == Layout::Kind::blocked) return false;
  const std::size_t inner = layout.innermost_dim(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d != inner && shape[d] != 1) return false;
  }
  return true;
}

bool tile_is_contiguous(const Shape& whole, const Shape& shape, const Layout& layout) {
  KRIEK_ASSERT(whole.size() == shape.size(), "tile rank ", shape.size(), " of a rank-", whole.size(), " tensor");
  if (whole == shape) return true;
  const std::size_t rank = whole.size();
  if (layout.kind == Layout::Kind::blocked) {
    for (std::size_t d = 0; d < rank; ++d) {
      if (d != layout.dim && shape[d] != whole[d]) return false;
    }
    return shape[layout.dim] % layout.block == 0;
  }
  // Inner dimensions full, one partial dimension, outer dimensions of extent 1.
  auto order = physical_order(layout, rank);
  std::size_t i = rank;
  while (i > 0 && shape[order[i - 1]] == whole[order[i - 1]]) --i;
  if (i == 0) return true;
  --i;  // the partial dimension
  for (std::size_t j = 0; j < i; ++j) {
    if (shape[order[j]] != 1) return false;
  }
  return true;
}

TensorSpec tile_tensor(const TensorSpec& t, const Shape& shape) { return tile_tensor(t, shape, shape); }

TensorSpec tile_tensor(const TensorSpec& t, const Shape& shape, const Shape& step) {
  if (shape == t.shape) return t;
  KRIEK_ASSERT(step.size() == shape.size(), "tile step rank ", step.size(), " of a rank-", shape.size(), " tile");
  TensorSpec tile = t;
  tile.shape = shape;
  tile.contiguous = tile_in_one_run(t, shape, step);
  tile.run_dims = tile.contiguous ? 1 : tile_run_dims(t, shape);
  const std::size_t rank = shape.size(), runs_over = t.dense_dims();
  // Tiles start at multiples of `step`: aligned when every such start is a multiple of the alignment.
  const std::int64_t bytes = static_cast<std::int64_t>(dtype_bytes(t.dtype));
  const std::int64_t align = t.level == Level::VRF || t.level == Level::RF ? bytes : 64;
  bool aligned = t.aligned;
  if (t.layout.kind == Layout::Kind::blocked) {
    // [panels][other dimensions, row-major][block]: a panel step moves block * (other extents) elements.
    const std::size_t b = t.layout.dim;
    const std::int64_t block = t.layout.block;
    std::int64_t stride = block;
    for (std::size_t d = rank; d-- > 0;) {
      if (d == b) continue;
      if (step[d] < t.shape[d] && (step[d] * stride * bytes) % align != 0) aligned = false;
      stride *= t.shape[d];
    }
    if (step[b] < t.shape[b] && (step[b] % block != 0 || (step[b] / block * stride * bytes) % align != 0)) {
      aligned = false;
    }
    tile.aligned = aligned;
    return tile;
  }
  // A contiguous t's strides follow from its shape, and a strided t's within its runs; the others are its
  // buffer's, unknown here, but all whole lines when it is aligned (every run starts on a line), so steps along
  // them keep the alignment. A strided tile of a contiguous t is aligned only when every run of it starts on a
  // line: the strides between its runs are whole lines (a panel of a 257-float-wide matrix's are not: row k starts
  // 4k bytes past one).
  auto order = physical_order(t.layout, rank);
  std::int64_t stride = 1;
  for (std::size_t i = rank; i-- > 0;) {
    const std::size_t d = order[i];
    const bool innermost = i + 1 == rank;
    if (i + runs_over >= rank) {
      const bool between_runs = !tile.contiguous && i + tile.run_dims < rank;
      if (step[d] < t.shape[d] && (step[d] * stride * bytes) % align != 0) aligned = false;
      if (!innermost && between_runs && shape[d] > 1 && (stride * bytes) % align != 0) aligned = false;
    }
    stride *= t.shape[d];
  }
  tile.aligned = aligned;
  return tile;
}

std::optional<Shape> register_box(const Shape& shape, std::uint32_t vector_size) {
  std::int64_t need = vector_size;
  if (need < 1) return std::nullopt;
  Shape box(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 0 && need > 1;) {
    if (shape[d] <= need && need % shape[d] == 0) {
      box[d] = shape[d];
      need /= shape[d];
    } else if (shape[d] % need == 0) {
      box[d] = need;
      need = 1;
    } else {
      return std::nullopt;
    }
  }
  if (need != 1) return std::nullopt;
  return box;
}

TensorSpec reduced_slice(const TensorSpec& t, std::size_t axis) {
  Shape shape = t.shape;
  shape[axis] = 1;
  return tile_tensor(t, shape);
}

bool register_rows_dense(const TensorSpec& t, std::uint32_t vector_size) {
  const auto box = register_box(t.shape, vector_size);
  if (!box) return false;
  bool along_innermost = true;
  for (std::size_t d = 0; d + 1 < box->size(); ++d) along_innermost &= (*box)[d] == 1;
  if (t.layout.same_placement(Layout::row_major(), t.shape)) return t.contiguous || along_innermost;
  return along_innermost && whole_register_panels(t, vector_size);
}

Layout register_panels(std::size_t rank, std::uint32_t vector_size) {
  KRIEK_ASSERT(rank >= 1, "register panels of a rank-0 tensor");
  return Layout::blocked(static_cast<std::uint8_t>(rank - 1), vector_size);
}

bool rows_end_partial(const Shape& shape, std::uint32_t vector_size) {
  return !shape.empty() && vector_size > 0 && shape.back() % vector_size != 0;
}

bool in_register_panels(const TensorSpec& t) {
  return t.level == Level::VRF && t.rank() >= 1 && t.vector_size > 0 &&
         t.layout == register_panels(t.rank(), t.vector_size);
}

bool register_rows(const TensorSpec& t) {
  if (t.level != Level::VRF || t.rank() == 0 || t.vector_size == 0) return false;
  if (in_register_panels(t)) return true;
  return t.layout.same_placement(Layout::row_major(), t.shape) && t.shape.back() % t.vector_size == 0;
}

std::int64_t registers_of(const TensorSpec& t) {
  KRIEK_ASSERT(t.level == Level::VRF && t.vector_size > 0, "registers of a tensor outside VRF");
  const std::int64_t vs = t.vector_size;
  return (t.layout.buffer_elements(t.shape) + vs - 1) / vs;
}

bool register_panels_dense(const TensorSpec& t, std::uint32_t vector_size) {
  if (t.rank() == 0) return false;
  // A row of a row-major tensor is one run at any row stride.
  if (t.layout.kind == Layout::Kind::row_major) return true;
  if (t.contiguous && t.layout.same_placement(Layout::row_major(), t.shape)) return true;
  return whole_register_panels(t, vector_size);
}

}  // namespace kriek
