// Prefetches of tiles streamed from main memory, as the lowering plans them: which aliases stream (streamed_tile),
// which lines the next iteration's tile holds, as a few nested progressions of element offsets, and how often the
// body's FMA kernels fetch one, so that the lines spread evenly over one run of the body. Both emitters spell a
// plan's steps (Emitter::prefetch).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_view.h"
#include "impl/node.h"
#include "spec/target.h"

namespace kriek::codegen {

/// One level of the lines' nested progressions: `extent` of them, `stride` elements apart, each level inside
/// spanning `inner` lines.
struct PrefetchDim {
  std::int64_t extent = 1;
  std::int64_t inner = 1;
  std::int64_t stride = 0;
};

/// The lines of the next tile: line j (0 <= j < lines) starts at element offset + sum over dims of
/// ((j / inner) % extent) * stride of buffer `base` (a memory view's base). A step of the body (one FMA kernel
/// call) counts up `counter`; every `spacing`-th step fetches `per_step` lines (line j on count c: j = c / spacing
/// * per_step + q), none once all are fetched. (The LLVM backend fetches on every step, without a branch: a step
/// between two due ones fetches the due one's lines again, a step past them the last lines.)
struct PrefetchPlan {
  std::string base;
  Affine offset;
  std::vector<PrefetchDim> dims;  ///< outermost first
  std::int64_t lines = 0;
  std::int64_t spacing = 1;  ///< a power of two
  std::int64_t per_step = 1;
  std::string counter;  ///< the emitter's name for the step counter (Emitter::prefetch_counter)
  bool into_l1 = true;  ///< into L1, else into L2 only (a tile aliased in L2)

  /// The counts below which a step may fetch (every line fetched by then).
  std::int64_t fetching_steps() const { return (lines + per_step - 1) / per_step * spacing; }
};

/// The plan of a streamed tile `view` whose body calls FMA kernels `calls` times per run: the next tile is
/// the view one iteration on along the innermost of `vars` (the loop variables open around the alias, outermost
/// first) that moves it. nullopt when none moves it, when its lines form no few nested progressions (a blocked
/// layout's panels cut off-block), or when nothing in the body would carry them (no FMA kernel).
std::optional<PrefetchPlan> prefetch_plan(const CView& view, const std::vector<Affine>& vars, std::int64_t calls);

/// The prefetches of an alias `m` (node `n`, its operand's view `view` under the loop variables `vars`) that streams
/// its rhs from main memory: a tile of a matmul's rhs or a conv's filters in GL whose buffer outgrows L2 (so every
/// call reads it from L3 or memory) aliased into L1 or L2, in a loop that moves it, with FMA kernels in its body.
/// While they run, the next iteration's tile comes into the same cache. nullopt for every other move. A lowering
/// rule, not a search decision: a Spec cannot tell a 9 MB filter bank from operands that stay in cache between
/// calls (a first version let the DP choose prefetching aliases, priced as hidden transfers: matmuls from 64^3 to
/// 300x700x500 took them and 1.02-1.09x the time).
/// Where the body reads the tile many times (a block of filters for every pixel), its first pass otherwise waits
/// for L3: conv 1x7x7x512 3x3x512x512 (128x64 blocks of packed filters for 7 rows of 7 pixels, one core) took
/// 0.88x the time with them (162 against 143 GFLOP/s; oneDNN 161), where the same kernel with its filters
/// resident in L2 took 0.87x; 1x14x14x256 3x3x256x512 stride 2 0.90-0.96x. Tiles aliased in L2: conv 1x7x7x512
/// 1x1x512x2048 (packed) 0.98-0.99x, 1x14x14x1024 1x1x1024x2048 stride 2 0.96-0.97x, 1x14x14x256 3x3x256x256
/// 1.00x. Only the rhs: the kernels read a register of it per row of their tile, so a first pass outruns L3; the
/// lhs is broadcast an element at a time (matmul 1024^3's 6x1024 row panels of A took 1.00-1.04x the time with
/// prefetches). Not for copies: the same filters as given, each block packed into L1, with the next block's rows
/// prefetched into L2 while the block is read, took 0.93-0.97x the time in the VM's fast phases, 1.01-1.07x in
/// its slow ones.
std::optional<PrefetchPlan> streamed_tile(const ImplNode& n, const MoveOp& m, const CView& view,
                                          const std::vector<Affine>& vars, const Target& target);

/// How many FMA kernels (carries_prefetches) one run of `n` calls: its loops' iterations times their bodies'.
std::int64_t prefetch_carriers(const ImplNode& n);

/// The element offset of line `j` relative to the plan's offset, as a function of the line index the emitter
/// computes (for tests and for emitters that fold constants).
std::int64_t prefetch_line_offset(const PrefetchPlan& plan, std::int64_t j);

}  // namespace kriek::codegen
