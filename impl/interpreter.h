// The reference interpreter of Impl trees: runs a (possibly partial) Impl on real float buffers, giving every
// move, slide window and pipeline buffer a real buffer in its own layout, so that layout, offset and boundary bugs
// show up as wrong answers when compared against reference(). Holes run reference() of their Spec.
#pragma once

#include <cstdint>
#include <span>

#include "impl/node.h"

namespace kriek {

/// Counts of the data movement the interpreter performed, for tests that check how a schedule moves data.
struct InterpretStats {
  /// Elements copied from an input into slide-loop windows.
  std::int64_t window_loads = 0;
  /// Elements a slide loop kept from the previous window (shifted, not reloaded).
  std::int64_t window_shifts = 0;
  /// Buffers allocated by moves and pipelines.
  std::int64_t buffers = 0;
};

/// Runs `impl` on `operands`: one buffer per operand of the root Spec, in the operand's declared layout (dense and
/// row-major for a row-major operand, as reference() takes; random_operands makes such buffers). The output is
/// read first when the Spec accumulates. Parallel loops run serially.
void interpret(const ImplPtr& impl, std::span<float* const> operands);
/// The same, adding the movement counts to `stats`.
void interpret(const ImplPtr& impl, std::span<float* const> operands, InterpretStats& stats);

}  // namespace kriek
