// What enumerate.cpp and enumerate_moves.cpp share: where a Spec stands on the conv path (enumerate.h), and the
// action lists of moves and bufferize, which enumerate_moves.cpp makes. Internal to sched/.
#pragma once

#include <vector>

#include "sched/action.h"
#include "spec/conv_geometry.h"
#include "spec/target.h"

namespace kriek::sched_detail {

/// Where a Spec stands on the conv path (enumerate.h), worked out once per enumeration.
struct ConvPath {
  /// A Conv, or a conv with an elementwise epilogue (a Compose of a Conv, then unary and binary stages: its
  /// output is the conv's and its first two inputs the conv's image and filters), tiled and packed like a conv.
  bool led = false;
  bool own = false;          ///< the Spec is a Conv itself (not a Compose led by one)
  ConvGeometry g;            ///< the (leading) conv's geometry when `led`
  std::size_t row_dims = 0;  ///< batch and rows: tile_out cuts them only to 1 or keeps them whole
  bool padded = false;       ///< the (leading) conv is padded
  /// A Conv whose output is in a register level: the accumulation stage, which only takes taps one at a time,
  /// to_matmul and kernels.
  bool in_registers = false;
  /// A Conv with a 1x1 window and no padding: each run of an output row is a matmul (to_matmul) whose search
  /// tiles its channels and packs its image and output, so the conv stage only cuts rows and columns (output
  /// channels whole) and moves the filters (a packing hoisted above the loop over rows).
  bool pointwise = false;

  /// A Conv with a window (or one tap of one) whose output is in L1: it may accumulate there (to_accum), its
  /// taps (a padded one's by split_taps) and then its channels one block at a time, so that a block of filters, packed or read
  /// in place, stays in L1 across the output rows below (BLIS's panel of B in L1) instead of coming again from L2
  /// or memory for every row. conv[pad=1] 1x7x7x512 3x3x512x512 as given, 1 thread: 2248 -> 1618 us (its 9.4 MB
  /// of filters were packed into L2 per block of output channels, now per tap and 128 channels into L1, once each,
  /// between the FMAs that use them).
  bool in_l1 = false;

  /// A Conv with its output in memory: it neither splits nor accumulates (registers do both), but in L1 (in_l1).
  bool in_memory() const { return own && !in_registers && !in_l1; }
};

ConvPath conv_path(const Spec& spec);

/// Appends the move_to actions of `spec` (enumerate.h, step 4).
void moves(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out);

/// Appends the bufferize actions of `spec` (enumerate.h, step 6).
void bufferizes(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out);

}  // namespace kriek::sched_detail
