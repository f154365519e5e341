// The Kriek report's printed form of Impl trees (Figures 1, 3, 4): one node per line, nested by 4-space
// indentation, each node's Spec as a `# ` comment above it, operand names derived from the parent's, and an
// optional right-aligned annotation column (Figure 4's costs). Deterministic: golden tests compare it exactly.
//
// Naming rule. Root operands are named by op kind: matmul and binary ops `lhs, rhs, out`; conv `img, filters,
// out`; move, unary and reducesum `in, out`; zero `out`; compose `in0, in1, ..., out`. A loop appends one letter
// to every operand whose TensorSpec differs in some body (`T` tile, `t` split, `S` slide, whatever the loop's
// kind, so `out` under a slide becomes `outS`); a move appends `r` to the moved operand; a pipeline names its
// buffer `buf1`, `buf2`, ... in print order. Figure 1 mixes `T`/`t` and `r`/`R`; this rule never does.
//
// Lines (names from the example `lhs → lhsT → lhsTr`):
//   tile (lhsT: 32x128, outT: 32x32) <- (lhs, out)    a tile loop; only operands that change, full-tile shapes;
//                                                     `ptile` when parallel; a slide window adds its level and
//                                                     layout, e.g. `imgS: 7x16 L1 col`
//   split[64] (lhsTt: 32x64, rhsTt: 64x32) <- (lhsT, rhsT)    a split loop; `slide[32] (...)` likewise
//       boundary (outT: 32x4)                         above the body of each boundary pattern, listing the
//                                                     operands whose shape differs from the full tile's
//   move[L1] lhsTr <- lhsT                            `move*` for the output; `[L1 blk1:16 v16]` shows a new
//                                                     layout and vector size; `[L1 alias]` an aliasing move
//       load lhsTr <- lhsT                            above the prologue Impl (printed before the body)
//       store lhsT <- lhsTr                           above the epilogue Impl (printed after the body)
//   block                                             its statements in order
//   pipeline[cut 1, L1 row] buf1: 8x8                 its head then its tail
//   bcast_fma(lhsT, rhsr, outr)                       a kernel call
//   h1: hole                                          holes numbered by `holes()` order (children order, so a
//                                                     move's prologue hole may print before a lower number)
// Spec comments use a compact form, not the parseable spec text: `# matmul[acc] (32x1 GL, 1x16 VRF v16 ->
// 32x16 VRF v16) serial`, each operand its shape, level, then its dtype if not f32, its layout if not row-major,
// `v<n>` in VRF, `strided` if not contiguous and `unaligned` if not aligned.
#pragma once

#include <functional>
#include <string>

#include "impl/node.h"

namespace kriek {

struct PrintOptions {
  /// Print each node's Spec as a comment line above it.
  bool specs = true;
  /// When set, its text for a node goes in a right-aligned column after the node's line.
  std::function<std::string(const ImplNode&)> annotate;
};

/// The printed form of the tree, one line per node (and per spec comment), each line ending in '\n'.
std::string print_impl(const ImplPtr& impl, const PrintOptions& options = {});

/// The compact one-line form of a Spec used in the comments, e.g. `matmul (4x8 GL, 8x4 GL -> 4x4 GL)`.
std::string spec_comment(const Spec& spec);

/// The operand names a root Spec gets (see the naming rule above).
std::vector<std::string> root_operand_names(const Spec& spec);

}  // namespace kriek
