// Tiles of tensors: the TensorSpec a sub-tensor of a given shape inherits from its parent (level, layout and
// vector size kept; contiguity and alignment recomputed conservatively).
#pragma once

#include "spec/tensor_spec.h"

namespace kriek {

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

}  // namespace kriek
