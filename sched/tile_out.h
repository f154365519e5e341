// tile_out: the Kriek report's tile loop. Loops over tiles of the output of shape `tile`; every input is tiled to
// match, convolution images with their halo and stride; boundary tiles cover remainders.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the tile's rank equals the output's;
///   (2) every tile extent is at least 1 and at most the output's extent in that dimension;
///   (3) the tile differs from the output's shape (some dimension is tiled);
///   (4) a parallel loop is not allowed when the Spec is serial_only;
///   (5) every operand in VRF is cut into whole vector registers (tiles and boundary tiles);
///   (6) in a Move between VRF and memory, every tile of the memory side stays contiguous (vec_load and vec_store
///       need it; without this the tiles would be dead ends);
///   (7) no conv of the Spec (a Compose's stages included) is padded: a tile's image window would start before
///       the image (pad_image makes the padding real first).
/// The loop has one axis per tiled output dimension, in dimension order; loop kind tile; serial bodies when
/// parallel.
ExpandResult expand_tile_out(const TileOut& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_tile_out, or nullopt when it applies (cheap: builds no node).
std::optional<NotApplicable> tile_out_fails(const TileOut& action, const Spec& spec, const Target& target);

}  // namespace kriek
