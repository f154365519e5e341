// Tiles of tensors: the TensorSpec a sub-tensor of a given shape inherits from its parent (level, layout and
// vector size kept; contiguity and alignment recomputed conservatively), and the boxes of vector registers in them.
#pragma once

#include <optional>

#include "spec/tensor_spec.h"

namespace kriek {

/// True when `elements` elements of `dtype` are whole 64-byte lines: a stride of that many keeps every run that
/// starts on a line on one (TensorSpec::aligned of a strided operand).
bool whole_lines(std::int64_t elements, Dtype dtype);

/// The TensorSpec of a tile of shape `shape` taken from `t` at tile-multiple origins.
TensorSpec tile_tensor(const TensorSpec& t, const Shape& shape);
/// The same for a tile whose origins are multiples of `step` (a loop's tile, which a boundary tile's or a
/// convolution halo's shape is not): alignment follows from the step.
TensorSpec tile_tensor(const TensorSpec& t, const Shape& shape, const Shape& step);

/// True when every dimension but the layout's innermost has extent 1 (row- or column-major): such a box is one
/// gap-free range in any buffer, since the innermost dimension has stride 1 however the buffer is tiled.
bool is_unit_stride_run(const Shape& shape, const Layout& layout);

/// True when a tile of shape `shape` of a contiguous tensor of shape `whole` in `layout` is one gap-free range.
bool tile_is_contiguous(const Shape& whole, const Shape& shape, const Layout& layout);

/// The box of one vector register in a row-major tensor of `shape`: `vector_size` consecutive elements that form
/// a sub-tensor (1 in outer dimensions, a divisor of one dimension's extent, full inner dimensions) and tile the
/// shape. nullopt when the shape does not split into whole registers that way.
std::optional<Shape> register_box(const Shape& shape, std::uint32_t vector_size);

/// The tile of `t` at one index along `axis` (extent 1 there, every other dimension whole): what a reduction
/// over `axis` reads at each step.
TensorSpec reduced_slice(const TensorSpec& t, std::size_t axis);

/// True when memory tensor `t` can be moved to or from VRF registers of `vector_size` by vector loads and stores:
/// whole registers, each register's elements one gap-free range in row-major order: row-major placement with the
/// tensor contiguous or each register box along the innermost dimension (stride 1 in any buffer), or panels of
/// whole registers along the innermost dimension (blk<last>:<a multiple of vector_size>) starting at a panel
/// boundary (a 2048³ matmul's B packed in panels of 64 columns, one run per k-row, measured 0.90-0.97x the time of
/// panels of 16 on a Cascade Lake VM; its packing was scalar before).
bool register_rows_dense(const TensorSpec& t, std::uint32_t vector_size);

/// The VRF layout of register panels: the innermost dimension in panels of one register (blk<last>:vector_size),
/// so each register holds up to `vector_size` consecutive elements of one row and a row whose extent is not a
/// multiple of it ends in a partial register (its last lanes padding). How a register tile of an odd width stays
/// vectorized; for whole rows it places elements as row-major does.
Layout register_panels(std::size_t rank, std::uint32_t vector_size);
/// True when the rows of `shape` (its innermost extent) end in a partial register of `vector_size` lanes: the
/// shapes register panels are for (VRF takes rows of whole registers row-major, which places them alike).
bool rows_end_partial(const Shape& shape, std::uint32_t vector_size);
/// True when `t` is in VRF in register panels.
bool in_register_panels(const TensorSpec& t);
/// True when VRF tensor `t` is rows of registers, each register consecutive elements of one row: register panels,
/// or row-major placement with rows of whole registers.
bool register_rows(const TensorSpec& t);
/// Registers a VRF tensor takes (a partial register counts whole).
std::int64_t registers_of(const TensorSpec& t);
/// True when memory tensor `t` can be moved to or from VRF register panels of `vector_size` by vector loads and
/// stores (masked for a partial last register): each register's elements one gap-free range, in row-major rows
/// (any stride between rows) or in aligned panels blk<last>:<a multiple of vector_size>.
bool register_panels_dense(const TensorSpec& t, std::uint32_t vector_size);

}  // namespace kriek
