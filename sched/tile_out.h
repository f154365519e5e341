// tile_out: the Kriek report's tile loop. Loops over tiles of the output of shape `tile`; every input is tiled to
// match, convolution images with their halo and stride; boundary tiles cover remainders.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the tile's rank equals the output's;
///   (2) every tile extent is at least 1 and at most the output's extent in that dimension;
///   (3) the tile differs from the output's shape (some dimension is tiled), or is the whole output of an
///       unpadded conv whose image has rows or columns it never reads (a stride past the last window): one
///       iteration, its body the conv on the image it reads, which to_matmul and the kernels then take;
///   (4) a parallel loop is not allowed when the Spec is serial_only;
///   (5) every operand in VRF is cut into whole vector registers (tiles and boundary tiles);
///   (6) in a Move between VRF and memory, every tile of the memory side stays contiguous (vec_load and vec_store
///       need it; without this the tiles would be dead ends);
///   (7) a padded conv (a Compose's stages included) keeps its output's rows and columns whole: their tiles'
///       image windows would start before the image (pad_image or a padded slide make the padding real first);
///       its batch and output channels may be tiled (each core a slab of the channels, with a padded window of
///       its own below);
///   (8) one k-step of a register tile (a matmul with k = 1, the lhs in memory, the output in VRF) is cut into
///       column tiles only if all its accumulators, one broadcast per tile row and one tile's rhs registers fit
///       the vector registers: the calls share their rows' broadcasts once compiled (a 7x64 tile as two 7x32
///       calls needs 37 and spilled in its inner loop: 115 against 167 GFLOP/s for 7x32 tiles, conv
///       1x14x14x256 3x3x256x512 stride 2 with packed filters).
/// The loop has one axis per tiled output dimension, in dimension order; loop kind tile; serial bodies when
/// parallel.
ExpandResult expand_tile_out(const TileOut& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_tile_out, or nullopt when it applies (cheap: builds no node).
std::optional<NotApplicable> tile_out_fails(const TileOut& action, const Spec& spec, const Target& target);

}  // namespace kriek
