// How the operands of a Spec follow a loop over tiles of its output: the operand maps of tile_out (and of the
// output half of slide), for every op kind, Compose included (the output's tiling propagated back through the
// stages, with convolution halos adding up).
#pragma once

#include "impl/node.h"

namespace kriek::sched_detail {

/// The map of every operand of `spec` when its output follows `out_map` (one DimMap per output dimension).
/// Matmul: lhs[m,·] rhs[·,n] (a batch dimension follows on all three); Conv: image n, h (halo FH-1), w (halo
/// FW-1), channels whole, filters f; Move, Unary: like the output; Binary: like the output except broadcast
/// (extent-1) dimensions, which stay whole; ReduceSum: the input's dimensions other than the axis; Compose: each
/// stage's input maps from its output's map, the last stage's output first. Expects a valid Spec (shapes agree).
std::vector<OperandMap> output_tile_maps(const Spec& spec, const OperandMap& out_map);

/// The output map of a loop whose axes are the output dimensions where `tile` is below the extent, in dimension
/// order, and the loop's axes.
OperandMap output_axes(const Shape& output, const Shape& tile, std::vector<LoopAxis>& axes);

}  // namespace kriek::sched_detail
