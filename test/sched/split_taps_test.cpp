// split_taps: the taps of a padded conv each over only the outputs whose windows read the image. The ranges of
// each tap against a walk of every output, one test per numbered precondition, the node's children and their
// operands, hand schedules interpreted against the reference, and a golden of the printed Impl.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "impl/printer.h"
#include "impl/taps.h"
#include "sched/schedule.h"
#include "sched/split_taps.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

namespace {

/// A conv[acc] with `stride` and `pad` (rows, columns), the output inferred; all in GL row-major.
Spec padded_acc(Shape img, Shape filters, std::array<std::uint32_t, 2> stride, std::array<std::uint32_t, 2> pad) {
  Conv c{true};
  c.stride = stride;
  c.pad = pad;
  Spec s{c, {ts(img), ts(filters)}, false};
  s.operands.push_back(ts(infer_output_shape(PrimitiveOp{c}, std::vector<Shape>{img, filters})));
  return s;
}

ConvGeometry geometry(const Spec& s) {
  return conv_geometry(std::get<Conv>(s.op), s.input(0).shape, s.input(1).shape);
}

}  // namespace

TEST_CASE("tap ranges: the outputs each tap reads the image for, and those image rows", "[sched][split_taps]") {
  // 7 rows, pad 1, a 3-row filter: tap 0 skips output row 0 (it would read the padding above), tap 2 the last.
  const auto rows = tap_ranges(geometry(padded_acc({1, 7, 7, 4}, {3, 3, 4, 8}, {1, 1}, {1, 1})), 0);
  REQUIRE(rows.size() == 3);
  CHECK((rows[0].out_first == 1 && rows[0].outputs == 6 && rows[0].image_first == 0 && rows[0].image_rows == 6));
  CHECK((rows[1].out_first == 0 && rows[1].outputs == 7 && rows[1].image_first == 0 && rows[1].image_rows == 7));
  CHECK((rows[2].out_first == 0 && rows[2].outputs == 6 && rows[2].image_first == 1 && rows[2].image_rows == 6));
  // Stride 2: 14 rows give 7 outputs; tap 0 reads image rows 1, 3, ..., 11 for outputs 1..6.
  const auto strided = tap_ranges(geometry(padded_acc({1, 14, 14, 4}, {3, 3, 4, 8}, {2, 2}, {1, 1})), 0);
  REQUIRE(strided.size() == 3);
  CHECK((strided[0].out_first == 1 && strided[0].outputs == 6 && strided[0].image_first == 1 &&
         strided[0].image_rows == 11));
  CHECK((strided[2].out_first == 0 && strided[2].outputs == 7 && strided[2].image_first == 1 &&
         strided[2].image_rows == 13));
  // One image row padded by 1 on each side: only the middle tap reads it.
  const auto one = tap_ranges(geometry(padded_acc({1, 1, 5, 4}, {3, 3, 4, 8}, {1, 1}, {1, 1})), 0);
  REQUIRE(one.size() == 1);
  CHECK((one[0].tap == 1 && one[0].out_first == 0 && one[0].outputs == 1));
}

TEST_CASE("tap ranges: each tap's outputs are those whose window reads the image there (property)",
          "[sched][split_taps][property]") {
  const std::uint64_t seed = test_seed(7);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int round = 0; round < 3000; ++round) {
    const std::int64_t f = draw(1, 7), pad = draw(0, f - 1), stride = draw(1, 3);
    const std::int64_t image = draw(std::max<std::int64_t>(1, f - 2 * pad), 20);
    const Spec s = padded_acc({1, image, 3, 2}, {f, 1, 2, 2}, {static_cast<std::uint32_t>(stride), 1},
                              {static_cast<std::uint32_t>(pad), 0});
    const ConvGeometry g = geometry(s);
    INFO("image " << image << " filter " << f << " pad " << pad << " stride " << stride);
    const auto ranges = tap_ranges(g, 0);
    std::size_t next = 0;
    for (std::int64_t tap = 0; tap < f; ++tap) {
      std::vector<std::int64_t> reads;
      for (std::int64_t o = 0; o < g.oh; ++o) {
        const std::int64_t at = o * stride + tap - pad;
        if (at >= 0 && at < image) reads.push_back(o);
      }
      if (reads.empty()) continue;
      REQUIRE(next < ranges.size());
      const TapRange& r = ranges[next++];
      CHECK(r.tap == tap);
      CHECK(r.out_first == reads.front());
      CHECK(r.outputs == static_cast<std::int64_t>(reads.size()));
      CHECK(r.image_first == reads.front() * stride + tap - pad);
      CHECK(r.image_first + r.image_rows - 1 == reads.back() * stride + tap - pad);
    }
    CHECK(next == ranges.size());
  }
}

TEST_CASE("filter dimensions have one word each, shared with split's axes", "[sched][split_taps]") {
  CHECK(filter_dim_word(0) == "fh");
  CHECK(filter_dim_word(1) == "fw");
  CHECK(filter_dim_word(2) == "dim 2");
  for (std::uint8_t d = 0; d < 2; ++d) CHECK(filter_dim_of(filter_dim_word(d)) == d);
  CHECK(filter_dim_of("fz") == std::nullopt);
  CHECK(filter_dim_of("dim 2") == std::nullopt);
  // Split's filter axes (1 rows, 2 columns) and action text say the same words.
  CHECK(split_axis_word(1) == filter_dim_word(0));
  CHECK(split_axis_word(2) == filter_dim_word(1));
  CHECK(action_text(SplitTaps{1}) == "split_taps fw");
}

TEST_CASE("split_taps (1): a conv that accumulates", "[sched][split_taps]") {
  CHECK_THAT(reason(SplitTaps{0}, matmul({4, 4}, {4, 4}, true)), Contains("split_taps (1)"));
  CHECK_THAT(reason(SplitTaps{0}, matmul({4, 4}, {4, 4}, true)), Contains("; this is a matmul"));
  Spec s = padded_acc({1, 5, 5, 2}, {3, 3, 2, 4}, {1, 1}, {1, 1});
  std::get<Conv>(s.op).accumulate = false;
  CHECK_THAT(reason(SplitTaps{0}, s), Contains("split_taps (1): split_taps needs a conv that accumulates"));
  CHECK_THAT(reason(SplitTaps{0}, s), Contains("; this conv does not"));
}

TEST_CASE("split_taps (2): rows or columns, padded along it", "[sched][split_taps]") {
  const Spec rows_only = padded_acc({1, 5, 5, 2}, {3, 3, 2, 4}, {1, 1}, {1, 0});
  CHECK_THAT(reason(SplitTaps{1}, rows_only), Contains("split_taps (2): the conv has no padding along columns"));
  CHECK_THAT(reason(SplitTaps{2}, rows_only), Contains("split_taps (2): taps are split along fh or fw"));
}

TEST_CASE("split_taps (3): operands in memory", "[sched][split_taps]") {
  Spec s = padded_acc({1, 5, 5, 2}, {3, 3, 2, 16}, {1, 1}, {1, 1});
  s.operands[2].level = Level::VRF;
  s.operands[2].vector_size = 16;
  CHECK_THAT(reason(SplitTaps{0}, s), Contains("split_taps (3): an operand is in VRF"));
}

TEST_CASE("split_taps (4): no operand blocked along a dimension the taps cut", "[sched][split_taps]") {
  Spec s = padded_acc({1, 5, 5, 2}, {3, 3, 2, 4}, {1, 1}, {1, 1});
  s.operands[1].layout = Layout::blocked(0, 2);
  CHECK_THAT(reason(SplitTaps{0}, s), Contains("split_taps (4): operand 1 is blocked along dimension 0"));
  // Blocked along the output channels (packed filters) is fine.
  s.operands[1].layout = Layout::blocked(3, 2);
  CHECK(applied(SplitTaps{0}, s)->children.size() == 3);
}

TEST_CASE("split_taps makes one conv per tap over its outputs, without the padding along the cut",
          "[sched][split_taps]") {
  const Spec s = padded_acc({1, 7, 6, 4}, {3, 3, 4, 8}, {1, 1}, {1, 1});
  const ImplPtr n = applied(SplitTaps{0}, s);
  REQUIRE(n->children.size() == 3);
  CHECK(text(n->children[0]->spec) ==
        "conv[acc,pad=0x1] (1x6x6x4 f32 GL row, 1x3x4x8 f32 GL row -> 1x6x6x8 f32 GL row)");
  CHECK(text(n->children[1]->spec) ==
        "conv[acc,pad=0x1] (1x7x6x4 f32 GL row, 1x3x4x8 f32 GL row -> 1x7x6x8 f32 GL row)");
  // The boxes: image rows 0-5 for output rows 1-6 with filter row 0; image rows 1-6 for output rows 0-5 with row 2.
  const auto boxes = tap_boxes(s, TapSplit{0});
  CHECK((boxes[0][0].origin == Shape{0, 0, 0, 0} && boxes[0][1].origin == Shape{0, 0, 0, 0} &&
         boxes[0][2].origin == Shape{0, 1, 0, 0}));
  CHECK((boxes[2][0].origin == Shape{0, 1, 0, 0} && boxes[2][1].origin == Shape{2, 0, 0, 0} &&
         boxes[2][2].origin == Shape{0, 0, 0, 0}));
  // Columns next: 1x1 taps with no padding left.
  const ImplPtr cols = applied(SplitTaps{1}, n->children[0]->spec);
  REQUIRE(cols->children.size() == 3);
  // Tap 0 reads image columns 0-4 for output columns 1-5: runs of 5 pixels 6 pixels apart (not on lines).
  CHECK(text(cols->children[0]->spec) == "conv[acc] (1x6x5x4 f32 GL row unaligned strided:2, 1x1x4x8 f32 GL row -> "
                                         "1x6x5x8 f32 GL row unaligned strided:2)");
  CHECK(action_text(SplitTaps{1}) == "split_taps fw");
}

TEST_CASE("split_taps schedules compute the reference: strides, padding, images without channels",
          "[sched][split_taps]") {
  std::mt19937_64 rng(test_seed(13));
  for (const char* text : {"conv[pad=1] 1x7x6x3 3x3x3x5 f32", "conv[stride=2,pad=1] 1x9x8x2 3x3x2x4 f32",
                           "conv[stride=2,pad=3] 1x13x11x3 7x7x3x4 f32", "conv[pad=2x1] 2x5x4x2 5x3x2x3 f32",
                           "conv[pad=1] 6x5 3x3x2 f32", "conv[pad=1] 1x1x4x2 3x3x2x3 f32"}) {
    INFO(text);
    const Spec spec = parse_spec(text, avx512());
    const bool both = std::get<Conv>(spec.op).pad[0] > 0 && std::get<Conv>(spec.op).pad[1] > 0;
    Schedule s = schedule(spec, avx512()).to_accum().focus("h2").apply(SplitTaps{0});
    if (both) {
      // Each row tap's columns too: the holes after h1 (the zero) are the row taps, each cut into its columns'.
      const std::size_t taps = s.holes().size() - 1;
      std::size_t next = 2;
      for (std::size_t i = 0; i < taps; ++i) {
        const std::size_t before = s.holes().size();
        s = s.focus("h" + std::to_string(next)).apply(SplitTaps{1});
        next += s.holes().size() - before + 1;
      }
    }
    CHECK(interprets_reference(s.complete().impl(), rng));
  }
}

TEST_CASE("split_taps on a padded conv's rows and columns (golden)", "[sched][split_taps][golden]") {
  const Spec spec = parse_spec("conv[pad=1] 1x4x4x2 3x3x2x16 f32", avx512());
  const Schedule s = schedule(spec, avx512()).to_accum().focus("h2").apply(SplitTaps{0}).focus("h2").apply(
      SplitTaps{1});
  check_golden("split_taps", print_impl(s.impl()));
}
