// Small helpers the Sched operators share: NotApplicable reasons numbered by precondition, shape text, layout
// validity, the reduction dimensions of each op, and the vector-register rule that keeps VRF tensors in whole
// registers when they are tiled.
#pragma once

#include <optional>
#include <sstream>
#include <string>

#include "impl/tiling.h"
#include "spec/reasons.h"
#include "sched/action.h"

namespace kriek::sched_detail {

/// "tile_out (2): <the concatenated arguments>".
template <class... Args>
NotApplicable not_applicable(const char* op, int precondition, const Args&... args) {
  if (reasons_quiet()) return NotApplicable{};
  std::ostringstream out;
  out << op << " (" << precondition << "): ";
  (out << ... << args);
  return NotApplicable{out.str()};
}

using Why = std::optional<NotApplicable>;

/// The Expansion of a Loop, MoveOp, Pipeline or KernelCall node of `spec`: the kind (a Loop gets its
/// body_masks) and the children's Specs the node kind implies (loop_body_spec, move_child_specs, ...).
Expansion expansion(const Spec& spec, NodeKind kind);


/// True when `layout` describes a tensor of rank `rank`: a blocked layout's dimension exists and its block is
/// at least 1.
bool layout_valid(const Layout& layout, std::size_t rank);

/// Which reduction a split loops over: the op's main one (Matmul's K, Conv's channels in the rank-3 and rank-4
/// forms, ReduceSum's axis), or a Conv's filter rows or columns (its taps: the image window shifts with them).
enum class ReductionAxis : std::uint8_t { main = 0, filter_rows = 1, filter_columns = 2 };

/// A reduction an op can split: how each operand follows it (DimMap with axis 0, or whole), and its extent.
/// A conv's taps move its image by one row (column) per tap, over a window of (OH - 1) * stride more rows.
struct Reduction {
  PerOperand<DimMap> map;  ///< per operand: the dimension that follows the reduction, axis -1 for none
  PerOperand<int> dim;     ///< per operand: that dimension's index, -1 for none
  std::int64_t extent = 0;
};
/// The reduction `axis` of the Spec, or nullopt for ops without it (elementwise ops, Compose, Conv's rank-2 form
/// for `main`, anything but Conv for the filter axes).
std::optional<Reduction> reduction_of(const Spec& spec, ReductionAxis axis = ReductionAxis::main);

/// The map of every operand of `spec` when its output follows `out_map` (one DimMap per output dimension), as
/// tile_out's loops map them (tile_out.cpp: per op kind; a Compose's stages last first, so conv halos add up);
/// expects a valid Spec (shapes agree).
PerOperand<OperandMap> output_tile_maps(const Spec& spec, const OperandMap& out_map);

/// The first padded Conv among the op's stages (the op itself when primitive), or nullptr: Sched steps other than
/// pad_image require none.
const Conv* padded_conv(const Op& op);

/// The preconditions on VRF operands shared by tile_out, split and slide: every VRF operand's tiles in `loop`
/// hold whole registers (in register panels: cut the innermost dimension at whole registers, so only a row's end
/// is partial). Returns the index of the first operand that fails, or -1.
int vrf_operand_split(const Spec& spec, const Loop& loop);

}  // namespace kriek::sched_detail
