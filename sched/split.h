// split: the Kriek report's split loop. Tiles the reduction dimension (Matmul's K, Conv's channels, ReduceSum's
// axis) by `k`; every iteration accumulates into the whole output.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op has a reduction dimension: Matmul, Conv of rank-3 or rank-4 images (channels), ReduceSum;
///   (2) the Spec accumulates into its output (apply to_accum first);
///   (3) 1 <= k < the reduction extent;
///   (4) every operand in VRF is cut into whole vector registers (tiles and boundary tiles).
/// One loop axis over the reduction extent, loop kind split; the output is whole in every body.
ExpandResult expand_split(const Split& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_split, or nullopt when it applies (builds no node).
std::optional<NotApplicable> split_fails(const Split& action, const Spec& spec, const Target& target);

}  // namespace kriek
