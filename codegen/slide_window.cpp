// A slide loop's window in generated code: plan, buffer, border iterations, and the window's advance.
#include "codegen/slide_window.h"

#include <algorithm>

#include "spec/error.h"

namespace kriek::codegen {
namespace {

Coord constants(const Shape& s) { return Coord(s.begin(), s.end()); }

/// Fills the part of the window at `at` (relative to the buffer) of `part`, which holds the padded operand's region
/// at `origin` + `at`: the elements inside the operand are copied from it, the others zeroed. A coordinate that is
/// not constant (the window's dimension in a loop over iterations that reach no border) is inside.
void fill(Emitter& e, const WindowPlan& p, const CView& operand, const CView& buffer, const Coord& origin,
          const Shape& at, const Shape& part) {
  const std::size_t rank = part.size();
  for (auto x : part) {
    if (x <= 0) return;
  }
  Shape lo(rank, 0), hi = part;
  for (std::size_t d = 0; d < rank; ++d) {
    const Affine o = origin[d] + Affine(at[d]);
    if (!o.is_constant()) continue;
    lo[d] = std::clamp(p.border[d] - o.constant(), std::int64_t{0}, part[d]);
    hi[d] = std::clamp(p.border[d] + p.source[d] - o.constant(), std::int64_t{0}, part[d]);
    if (lo[d] >= hi[d]) return e.zero(buffer.sub(constants(at), part));
  }
  // The border strips of the part: before and after the interior in each dimension, the dimensions before it
  // cut to the interior (the same decomposition as pad_border's).
  Shape box_at = at, box = part;
  for (std::size_t d = 0; d < rank; ++d) {
    box[d] = lo[d];  // box_at[d] is still at[d]
    e.zero(buffer.sub(constants(box_at), box));
    box_at[d] = at[d] + hi[d];
    box[d] = part[d] - hi[d];
    e.zero(buffer.sub(constants(box_at), box));
    box_at[d] = at[d] + lo[d];
    box[d] = hi[d] - lo[d];
  }
  Coord from(rank);
  for (std::size_t d = 0; d < rank; ++d) from[d] = origin[d] + Affine(at[d] + lo[d] - p.border[d]);
  e.copy(operand.sub(from, box), buffer.sub(constants(box_at), box));
}

}  // namespace

WindowPlan window_plan(const Spec& spec, const Loop& l) {
  WindowPlan p;
  const TensorSpec& t = spec.operands[l.window->operand];
  p.dim = window_dim(l);
  const DimMap& m = l.operands[l.window->operand][p.dim];
  p.extent = m.extent(l.axes[0].tile);
  p.advance = l.axes[0].tile * m.step;
  p.source = t.shape;
  p.border = l.window->border.empty() ? Shape(t.rank(), 0) : Shape(l.window->border.begin(), l.window->border.end());
  return p;
}

std::pair<std::int64_t, std::int64_t> border_trips(const WindowPlan& p, std::int64_t full) {
  const std::int64_t first = p.border[p.dim], end = p.border[p.dim] + p.source[p.dim];
  std::int64_t leading = 0, trailing = 0;
  while (leading < full && leading * p.advance < first) ++leading;
  while (trailing < full - leading && (full - 1 - trailing) * p.advance + p.extent > end) ++trailing;
  return {leading, trailing};
}

CView advance_window(Emitter& e, const WindowPlan& p, const CView& operand, const CView& buffer, const Coord& origin,
                     const Shape& shape, bool first) {
  const std::size_t rank = shape.size();
  const Shape zero(rank, 0);
  if (first || p.overlap() == 0) {
    fill(e, p, operand, buffer, origin, zero, shape);
  } else {
    Shape at = zero, part = shape;
    at[p.dim] = p.advance;
    part[p.dim] = p.overlap();
    e.copy(buffer.sub(constants(at), part), buffer.sub(constants(zero), part));
    at[p.dim] = p.overlap();
    part[p.dim] = shape[p.dim] - p.overlap();
    fill(e, p, operand, buffer, origin, at, part);
  }
  return buffer.sub(constants(zero), shape);
}

}  // namespace kriek::codegen
