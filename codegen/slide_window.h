// A slide loop's window in generated code (impl/node.h's SlideWindow): its geometry, which of the loop's full
// iterations reach past a padded image (the lowering emits those with constant trips, so the loop it emits
// never tests for the border), and the copies and zeroes that bring the window up to an iteration's region:
// all of it in the first iteration, then the overlap shifted down within the buffer and only the new part loaded.
#pragma once

#include <cstdint>

#include "codegen/c_view.h"
#include "codegen/lowering.h"
#include "impl/node.h"

namespace kriek::codegen {

/// The geometry of one slide loop's window.
struct WindowPlan {
  std::size_t dim = 0;      ///< the operand dimension the window moves along (window_dim)
  std::int64_t extent = 0;  ///< the window's extent along `dim` in a full iteration
  std::int64_t advance = 0; ///< how far along `dim` one iteration moves the window: tile * step
  Shape border;             ///< the zero padding around the operand in each dimension (all 0 when unpadded)
  Shape source;             ///< the operand's shape, without the border
  /// Elements along `dim` the next window shares with this one.
  std::int64_t overlap() const { return extent > advance ? extent - advance : 0; }
};

/// The plan of loop `l` (with a window) over the operands of `spec`.
WindowPlan window_plan(const Spec& spec, const Loop& l);

/// The full iterations at the start and at the end of the loop (`full` of them) whose region reaches past the
/// operand into its border: {leading, trailing}, together at most `full`. Both 0 without a border.
std::pair<std::int64_t, std::int64_t> border_trips(const WindowPlan& p, std::int64_t full);

/// Brings `buffer` (the window's whole buffer) up to the region of the padded operand at `origin` (constant but
/// along the window's dimension, where it may be a loop variable only for iterations that reach no border) of
/// `shape`, reading `operand` (the loop's view of the unpadded operand). `first`: load all of it; else shift the
/// previous iteration's overlap down and load the rest. Returns the view of the window the body reads.
CView advance_window(Emitter& e, const WindowPlan& p, const CView& operand, const CView& buffer, const Coord& origin,
                     const Shape& shape, bool first);

}  // namespace kriek::codegen
