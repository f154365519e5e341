// Measured tuning, shared by `kriek tune` and `kriek library --tune`: the K cheapest distinct kernels of a
// synthesized Spec by the cost model compiled, verified and timed in alternating rounds; the fastest (the DP's own
// pick unless another measures 3% faster) is recorded beside the DP table (cache/tuned.h), so that query, run and
// library use it, and becomes the Synthesis's Impl.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>

#include "tools/command.h"
#include "tools/synthesis.h"

namespace kriek::tools {

/// A candidate replaces the DP's pick only when it measures this much faster: within the timing's noise (a few
/// percent between rounds on a shared VM) the prediction breaks the tie, so a tuned pick is not slower.
inline constexpr double kTuneMargin = 1.03;

/// UserError naming `command` unless it can tune here: it records beside a DP table (not --no-table), and this
/// machine runs the target's code.
void require_tuning(const Args& args, const Target& target, std::string_view command);

struct TuneOutcome {
  std::size_t candidates = 0;  ///< how many were timed (fewer than asked when fewer distinct kernels exist)
  std::size_t fastest = 0;     ///< its index; 0 is the DP's own pick
  double seconds = 0;          ///< median seconds per call of the fastest
  double pick_seconds = 0;     ///< and of the DP's pick, in the same rounds
};

/// Tunes `s` (after require_tuning; its table takes the record) over its `top` cheapest distinct kernels,
/// printing each candidate's predicted cost and measured time on `out`; records the fastest and sets s.impl and
/// s.tuned to it. nullopt (the reason printed) when a candidate does not verify. UserError when nothing fits the
/// limits.
std::optional<TuneOutcome> tune(Synthesis& s, std::size_t top, std::ostream& out);

}  // namespace kriek::tools
