// move_to: Fireiron's and the Kriek report's move. Gives one operand a new home (a faster level, another layout,
// vector registers) around the rest of the implementation, with a load prologue and a store epilogue; moving
// data into a cache without re-laying it out is an alias (the data keeps its address; no buffer, no copies).
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) `operand` indexes an operand of the Spec (inputs, then the output);
///   (2) the target has `level` (and the operand's own level);
///   (3) `level` is not slower than the operand's level;
///   (4) `layout` is valid for the operand's rank;
///   (5) the move makes progress, so that every subproblem is smaller and the DP's Spec graph has no cycles:
///       the level is faster than the operand's, or, at the same memory level (GL, L2, L1) and not in a Move
///       Spec, it is a packing copy: row-major destination for an operand that is strided, unaligned or not
///       row-major;
///   (6) VRF needs vector_size equal to the target's vector elements for the dtype; other levels need 0;
///   (7) VRF holds row-major whole registers: the shape splits into boxes of vector_size consecutive elements,
///       and the operand is contiguous and row-major in memory (vec_load and vec_store reach it); or, when the
///       innermost extent is not a multiple of vector_size, register panels (impl/tiling.h's register_panels: each
///       row's last register partial) of a row-major operand (masked loads and stores reach its rows);
///   (8) VRF and RF destinations fit the level's capacity;
///   (9) register files do not mix: no move to VRF while another operand is in RF, nor to RF while an
///       operand is in VRF (no kernel reads both);
///   (10) a vector kernel can serve the operand in VRF: either side of a Move whose other side is contiguous
///       row-major memory, Zero's output, Unary and Binary operands of the output's shape (a broadcast input stays
///       in memory) placed as any other operand in VRF (the kernels go lane by lane), a rank-2
///       Matmul's (or a batch of 1's) rhs or output when the lhs is in memory and n is a multiple of the vector size (any n
///       in register panels), a ReduceSum's output in whole registers or register panels (vec_sum_rows, or over
///       the input's innermost axis vec_sum_runs: a register of rows' sums, partial for fewer rows), a Conv's output in
///       whole registers when its image and filters are in memory and its output channels a multiple of the
///       vector size (to_matmul makes it bcast_fma's);
///   (11) in a Move Spec, the level is faster than both operands' (the prologue or epilogue the move makes is
///       itself a Move Spec, which must be smaller than this one);
///   (12) `copy` only where the move would otherwise be an alias (a cache level, the operand's own placement)
///       and the operand is strided: the copy packs its rows into one contiguous buffer.
/// A move to a cache level (L2, L1) that keeps the placement of elements is an alias unless `copy`: dest is the
/// operand at the new level, nothing else changes, no prologue or epilogue. Otherwise dest is a fresh aligned,
/// contiguous buffer with a load prologue for inputs and accumulating outputs and a store epilogue for the output.
ExpandResult expand_move_to(const MoveTo& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_move_to, or nullopt when it applies (builds no node).
std::optional<NotApplicable> move_to_fails(const MoveTo& action, const Spec& spec, const Target& target);

/// The MoveOp the action makes, assuming it applies.
MoveOp move_op(const MoveTo& action, const Spec& spec, const Target& target);

}  // namespace kriek
