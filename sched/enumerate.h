// The enumeration of every legal action of a Spec, the DP's branching (enumerate_actions in action.h), and the
// tile-size grid it draws sizes from.
//
// The grid. For an extent E, the sizes are the numbers 2^i and 3*2^i below E (1, 2, 3, 4, 6, 8, 12, 16, 24, 32,
// 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, ...) and E itself where the action allows it. Powers of two
// align tiles to vector widths and cache lines; the 3*2^i sizes reach register tiles such as 6x64 and
// cache tiles such as 96 or 192 that leave boundary tiles; E keeps a dimension whole.
//
// The order (deterministic, a function of the Spec and target only):
//   1. tile_out over the product of the output dimensions' grids (E included, the whole output excluded),
//      dimension 0 outermost, sizes increasing; each tile serial, then parallel unless serial_only;
//   2. split over the grid below the reduction extent;
//   3. slide of each spatial output dimension of a Conv over the grid below its extent, with the window at GL,
//      L2, L1 (those the target has and not slower than the image), row-major;
//   4. move_to of each operand (inputs, then the output) to each level not slower than its own, slowest first:
//      GL, L2, L1 in row-major, then for rank >= 2 blocked by the vector width on the innermost dimension and
//      column-major (a layout that places elements like an earlier one is skipped; a cache move that keeps the
//      placement is an alias); VRF row-major with the target's vector size; RF row-major;
//   5. to_accum; 6. bufferize at each cut in GL, then L1, row-major; 7. select of every legal kernel.
// Every action returned applies (the checks are the operators' own `*_fails` functions, which build no node).
#pragma once

#include <vector>

#include "sched/action.h"

namespace kriek {

/// The grid sizes for extent `extent`: 2^i and 3*2^i below it, increasing, then `extent` when `with_extent`.
std::vector<std::int64_t> tile_sizes(std::int64_t extent, bool with_extent);

}  // namespace kriek
