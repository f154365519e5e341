// The cost model's price of a slide window: its first load whole, then per step the part new along the dimension
// the window moves (loaded from the image's level) and the overlap shifted in place; a padded conv's window costs
// as much as an unpadded one of the same shape.
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/cost.h"

using namespace kriek;
using namespace kriek::test;

namespace {

/// conv (1 x H x W x 16 image, 3x3x16x16 filters) with `pad`, slid along its output rows by `rows` with the window
/// in L1: the loop slide's expansion builds.
ImplPtr slid(std::int64_t h, std::int64_t w, std::uint32_t pad, std::int64_t rows) {
  Conv c;
  c.pad = {pad, pad};
  const std::int64_t oh = h + 2 * pad - 2, ow = w + 2 * pad - 2;
  const Spec s{c, {ts({1, h, w, 16}), ts({3, 3, 16, 16}), ts({1, oh, ow, 16})}, true};
  Loop l;
  l.kind = LoopKind::slide;
  l.axes = {{oh, rows}};
  l.operands = {{DimMap{-1, 0}, DimMap{0, 2}, DimMap{-1, 0}, DimMap{-1, 0}}, dims({-1, -1, -1, -1}),
                dims({-1, 0, -1, -1})};
  l.window = SlideWindow{0, Level::L1, Layout::row_major(), {}};
  if (pad > 0) l.window->border = {0, pad, pad, 0};
  return loop_of(s, l, hole);
}

}  // namespace

TEST_CASE("cost: a slide window loads its new rows per step, not the whole window", "[impl][cost]") {
  const CostModel m = CostModel::for_target(avx512());
  // 8 output rows one at a time: a window of 3 rows of 12 pixels, each pixel's 16 channels one line.
  const ImplPtr n = slid(10, 12, 0, 1);
  const NodeCost nc = node_cost(*n, avx512(), m);
  const Cost first = 3 * 12, step = 12, per_line = m.line_from[0] + m.vector_load + m.vector_store;
  const Cost window = first * per_line + 7 * (step * per_line + (first - step) * m.vector_store);
  CHECK(nc.base == 8 * m.loop_iteration + window);
  CHECK(nc.own[Level::L1] == 3 * 12 * 16 * 4);
  // Two rows per step: 4 steps of 2 new rows each.
  const NodeCost two = node_cost(*slid(10, 12, 0, 2), avx512(), m);
  const Cost first2 = 4 * 12, step2 = 2 * 12;
  CHECK(two.base ==
        4 * m.loop_iteration + first2 * per_line + 3 * (step2 * per_line + (first2 - step2) * m.vector_store));
  // The same window over a padded image (8 x 10 pixels, pad 1) costs the same: its border is zeroed in place of
  // the lines loaded.
  const ImplPtr padded = slid(8, 10, 1, 1);
  CHECK(padded->children.front()->spec.input(0).shape == Shape{1, 3, 12, 16});
  CHECK(node_cost(*padded, avx512(), m).base == nc.base);
}
