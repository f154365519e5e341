// split: the Kriek report's split loop. Tiles a reduction (Matmul's K, Conv's channels, ReduceSum's axis, or a
// Conv's filter rows or columns) by `k`; every iteration accumulates into the whole output. Splitting a conv's
// filter rows to 1 loops over its taps: each iteration reads the image window shifted by the tap.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op has the reduction `axis`: the main one for Matmul, Conv of rank-3 or rank-4 images (channels),
///       ReduceSum; filter rows and columns (axis 1, 2) for every Conv;
///   (2) the Spec accumulates into its output (apply to_accum first);
///   (3) 1 <= k < the reduction extent;
///   (4) every operand in VRF is cut into whole vector registers (tiles and boundary tiles);
///   (5) a Conv has no padding (pad_image first, or split_taps, which splits a padded conv's taps).
/// One loop axis over the reduction extent, loop kind split; the output is whole in every body; a conv image's
/// rows (columns) follow filter-row (column) splits with a halo of (OH - 1) * stride.
ExpandResult expand_split(const Split& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_split, or nullopt when it applies (builds no node).
std::optional<NotApplicable> split_fails(const Split& action, const Spec& spec, const Target& target);

/// The extent of the op's reduction `axis` (Split::axis), or nullopt when the op has none (precondition 1).
std::optional<std::int64_t> reduction_extent(const Spec& spec, std::uint8_t axis = 0);

}  // namespace kriek
