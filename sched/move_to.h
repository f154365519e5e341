// move_to: Fireiron's and the Kriek report's move. Gives one operand a new home (a faster level, another layout,
// vector registers) around the rest of the implementation, with a load prologue and a store epilogue; moving
// data into a cache without re-laying it out is an alias (the data keeps its address; no buffer, no copies).
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) `operand` indexes an operand of the Spec (inputs, then the output);
///   (2) the target has `level` (and the operand's own level);
///   (3) `level` is strictly faster than the operand's level, and of a copy (a Move Spec) only the input moves,
///       into registers, when neither operand is in registers yet (a copy between memories goes through
///       registers); the one exception is a copy to or from VRF, whose memory side may get a contiguous
///       row-major buffer at its own level. These keep the search acyclic: without them a same-level
///       re-layout, or a copy's operand moved where the other one is, restates a Spec as its own subproblem;
///   (4) `layout` is valid for the operand's rank;
///   (5) the move changes something: the level, the vector size, the placement of elements, or (for a copy)
///       makes a strided or unaligned operand contiguous and aligned;
///   (6) VRF needs vector_size equal to the target's vector elements for the dtype; other levels need 0;
///   (7) VRF holds row-major whole registers: the shape splits into boxes of vector_size consecutive elements;
///   (8) VRF and RF destinations fit the level's capacity;
///   (9) register files do not mix: no move to VRF while another operand is in RF, nor to RF while an
///       operand is in VRF (no kernel reads both);
///   (10) a vector kernel can serve the operand in VRF: either side of a Move from or to memory, Zero's output,
///       Unary operands, Binary operands when nothing broadcasts, a rank-2 Matmul's rhs or output when the
///       lhs is in memory and n is a multiple of the vector size.
/// A move to a cache level (L2, L1) that keeps the placement of elements is an alias: dest is the operand at the
/// new level, nothing else changes, no prologue or epilogue. Otherwise dest is a fresh aligned, contiguous
/// buffer with a load prologue for inputs and accumulating outputs and a store epilogue for the output.
ApplyResult apply_move_to(const MoveTo& action, const Spec& spec, const Target& target);

/// The failed precondition of apply_move_to, or nullopt when it applies (builds no node).
std::optional<NotApplicable> move_to_fails(const MoveTo& action, const Spec& spec, const Target& target);

/// The MoveOp the action makes, assuming it applies.
MoveOp move_op(const MoveTo& action, const Spec& spec, const Target& target);

}  // namespace kriek
