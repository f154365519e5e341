// Small helpers the Sched operators share: NotApplicable reasons numbered by precondition, shape text, layout
// validity, the reduction dimensions of each op, and the vector-register rule that keeps VRF tensors in whole
// registers when they are tiled.
#pragma once

#include <optional>
#include <sstream>
#include <string>

#include "impl/tiling.h"
#include "sched/action.h"

namespace kriek::sched_detail {

/// "tile_out (2): <the concatenated arguments>".
template <class... Args>
NotApplicable not_applicable(const char* op, int precondition, const Args&... args) {
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

/// The reduction dimension an op can split: the operand dimension each operand has it in (-1: none), and its
/// extent. Matmul's K (lhs's last dimension, rhs's second to last), Conv's channels (rank-3 and rank-4 forms),
/// ReduceSum's axis. nullopt for ops without one (Conv's rank-2 form, elementwise ops, Compose).
struct Reduction {
  std::vector<int> dim;  ///< per operand
  std::int64_t extent = 0;
};
std::optional<Reduction> reduction_of(const Spec& spec);

/// For an operand in VRF: true when a tile of shape `tile` (and the remainders `extent % tile`) holds whole
/// registers, i.e. every extent is a multiple of the register box's. Always true for other levels.
bool whole_registers(const TensorSpec& t, const Shape& tile);

/// The preconditions on VRF operands shared by tile_out, split and slide: every VRF operand's tiles in `loop`
/// hold whole registers. Returns the index of the first operand that fails, or -1.
int vrf_operand_split(const Spec& spec, const Loop& loop);

}  // namespace kriek::sched_detail
