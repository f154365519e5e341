// flatten: an elementwise op over dense buffers is the same op over one flat run of their elements. A relu of
// 99x37 floats tiled by rows ends every row of 37 in a masked register (2 whole and one of 5 lanes per row, most
// loads and stores split across cache lines); flat, it is 228 whole registers and one of 15 lanes, in order. The
// DP chooses it where that pays: operands in memory, all of one shape, row-major, dense (a tile of whole rows
// is; a broadcast input or a tile of part of each row is not) or strided with runs over several dimensions (a
// padded image's interior: rows of pixels, merged into rows of floats).
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is elementwise: Unary, Binary, Move, Zero, or a Compose of them (a Move or Zero of pixels of 3
///       channels, one masked register per pixel by rows, is whole registers across pixels flat);
///   (2) the output has rank 2 or more (a rank-1 Spec is flat already);
///   (3) every operand has the output's shape (no broadcast input);
///   (4) every operand is in memory (GL, L2 or L1);
///   (5) every operand is row-major, its gap-free runs spanning at least its 2 innermost dimensions (dense, or a
///       strided view such as a padded image's interior, whose runs are rows of pixels).
/// One Reshape node whose child is the same op over its operands with their innermost dimensions merged as far as
/// every operand's runs reach (flattened_dims): rank 1 when all are dense.
ExpandResult expand_flatten(const Flatten& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_flatten, or nullopt when it applies (builds no node).
std::optional<NotApplicable> flatten_fails(const Flatten& action, const Spec& spec, const Target& target);

}  // namespace kriek
