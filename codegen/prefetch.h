// Prefetches of streamed tiles as the lowering plans them (lowering.cpp's `streamed` says which moves stream their
// input from main memory): which lines the next iteration's tile holds, as a few nested progressions of element
// offsets, and how often the body's FMA kernels fetch one, so that the lines spread evenly over one run of the
// body. Both emitters spell a plan's steps (Emitter::prefetch).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_view.h"
#include "impl/node.h"

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
/// * per_step + q), none once all are fetched.
struct PrefetchPlan {
  std::string base;
  Affine offset;
  std::vector<PrefetchDim> dims;  ///< outermost first
  std::int64_t lines = 0;
  std::int64_t spacing = 1;  ///< a power of two
  std::int64_t per_step = 1;
  std::string counter;  ///< the emitter's name for the step counter (Emitter::prefetch_counter)
  bool into_l1 = true;  ///< into L1, else into L2 only (a tile aliased in L2)
};

/// The plan of a streamed tile `view` whose body calls FMA kernels `calls` times per run: the next tile is
/// the view one iteration on along the innermost of `vars` (the loop variables open around the alias, outermost
/// first) that moves it. nullopt when none moves it, when its lines form no few nested progressions (a blocked
/// layout's panels cut off-block), or when nothing in the body would carry them (no FMA kernel).
std::optional<PrefetchPlan> prefetch_plan(const CView& view, const std::vector<Affine>& vars, std::int64_t calls);

/// How many FMA kernels (carries_prefetches) one run of `n` calls: its loops' iterations times their bodies'.
std::int64_t prefetch_carriers(const ImplNode& n);

/// The element offset of line `j` relative to the plan's offset, as a function of the line index the emitter
/// computes (for tests and for emitters that fold constants).
std::int64_t prefetch_line_offset(const PrefetchPlan& plan, std::int64_t j);

}  // namespace kriek::codegen
