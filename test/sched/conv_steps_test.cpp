// The conv steps: split over filter taps, to_matmul and pad_image, one test per numbered precondition, the
// preconditions strides and padding add to tile_out, split and slide, and hand-built conv schedules through
// taps, the matmul view and a padded buffer interpreted against the reference.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "impl/printer.h"
#include "sched/schedule.h"
#include "sched/to_matmul.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

namespace {

/// A conv with `stride` and `pad` (both dimensions), the output inferred; all in GL row-major.
Spec strided(Shape img, Shape filters, std::uint32_t stride, std::uint32_t pad, bool accumulate = false) {
  Conv c{accumulate};
  c.stride = {stride, stride};
  c.pad = {pad, pad};
  Spec s{c, {ts(img), ts(filters)}, false};
  s.operands.push_back(ts(infer_output_shape(PrimitiveOp{c}, std::vector<Shape>{img, filters})));
  return s;
}

std::vector<Shape> shapes(const Spec& s) {
  std::vector<Shape> out;
  for (const auto& t : s.operands) out.push_back(t.shape);
  return out;
}

}  // namespace

TEST_CASE("split (1): filter taps only of a conv", "[sched][split]") {
  CHECK_THAT(reason(Split{1, 1}, matmul({4, 4}, {4, 4}, true)), Contains("split (1): matmul has no reduction over filter taps"));
  CHECK_THAT(reason(Split{1, 3}, conv({6, 6}, {3, 3, 2}, true)), Contains("split (1): reduction axis 3 does not exist"));
}

TEST_CASE("split (5): no padding", "[sched][split]") {
  CHECK_THAT(reason(Split{1, 1}, strided({8, 8, 2}, {3, 3, 2, 4}, 1, 1, true)),
             Contains("split (5): the conv is padded (1x1); pad_image first"));
}

TEST_CASE("split over filter taps shifts the image window", "[sched][split]") {
  // Stride 2: 3 output rows read (3 - 1) * 2 + 1 image rows per tap row.
  const Spec s = strided({1, 7, 9, 3}, {3, 3, 3, 4}, 2, 0, true);
  CHECK(s.output().shape == Shape{1, 3, 4, 4});
  const ImplPtr rows = applied(Split{1, 1}, s);
  CHECK(shapes(rows->children[0]->spec) == std::vector<Shape>{{1, 5, 9, 3}, {1, 3, 3, 4}, {1, 3, 4, 4}});
  const ImplPtr cols = applied(Split{1, 2}, rows->children[0]->spec);
  CHECK(shapes(cols->children[0]->spec) == std::vector<Shape>{{1, 5, 7, 3}, {1, 1, 3, 4}, {1, 3, 4, 4}});
  CHECK(action_text(Split{1, 1}) == "split 1 fh");
  CHECK(action_text(Split{2, 2}) == "split 2 fw");
  std::mt19937_64 rng(test_seed(7));
  const Schedule sch = schedule(s, avx512()).apply(Split{2, 1}).complete();
  CHECK(interprets_reference(sch.impl(), rng));
}

TEST_CASE("tile_out (7): a padded conv keeps its output rows and columns whole", "[sched][tile_out]") {
  CHECK_THAT(reason(TileOut{{1, 8, 4}}, strided({8, 8, 2}, {3, 3, 2, 4}, 1, 1)),
             Contains("tile_out (7): a conv is padded (1x1) and the tile cuts its output's dimension 0; pad_image "
                      "or slide first"));
  CHECK_THAT(reason(TileOut{{1, 8, 4, 4}}, strided({1, 8, 8, 2}, {3, 3, 2, 4}, 1, 1)),
             Contains("tile_out (7): a conv is padded (1x1) and the tile cuts its output's dimension 2"));
  // Its output channels may be tiled: each tile is the same padded conv over a slab of the filters.
  const Spec s = strided({2, 7, 6, 3}, {3, 3, 3, 8}, 2, 1);
  const ImplPtr n = applied(TileOut{{1, 4, 3, 4}}, s);
  CHECK(shapes(n->children[0]->spec) == std::vector<Shape>{{1, 7, 6, 3}, {3, 3, 3, 4}, {1, 4, 3, 4}});
  CHECK(std::get<Conv>(n->children[0]->spec.op).pad == std::array<std::uint32_t, 2>{1, 1});
  std::mt19937_64 rng(test_seed(10));
  const Schedule slabs = schedule(s, avx512()).tile_out({1, 4, 3, 4}, true).slide(1, 2, Level::L1);
  CHECK(interprets_reference(slabs.complete().impl(), rng));
}

TEST_CASE("tile_out follows strides: a tile of E outputs reads (E - 1) * stride + F image rows", "[sched][tile_out]") {
  const Spec s = strided({1, 15, 15, 2}, {3, 3, 2, 4}, 2, 0);
  CHECK(s.output().shape == Shape{1, 7, 7, 4});
  const ImplPtr n = applied(TileOut{{1, 2, 4, 4}}, s);
  CHECK(shapes(n->children[0]->spec) == std::vector<Shape>{{1, 5, 9, 2}, {3, 3, 2, 4}, {1, 2, 4, 4}});
  std::mt19937_64 rng(test_seed(8));
  CHECK(interprets_reference(schedule(s, avx512()).tile_out({1, 2, 4, 4}).complete().impl(), rng));
}

TEST_CASE("slide on a padded, strided conv: a window of the padded image's rows, the body unpadded",
          "[sched][slide]") {
  // Stride 2, pad 1: 2 output rows read (2 - 1) * 2 + 3 = 5 padded rows, all 9 + 2 padded columns.
  const Spec s = strided({1, 9, 9, 2}, {3, 3, 2, 4}, 2, 1);
  CHECK(s.output().shape == Shape{1, 5, 5, 4});
  const ImplPtr rows = applied(Slide{1, 2, Level::L1, Layout::row_major()}, s);
  const Loop& loop = std::get<Loop>(rows->kind);
  CHECK(loop.window->border == decltype(loop.window->border){0, 1, 1, 0});
  CHECK(loop.operands[0][1] == DimMap{0, 2, 2});
  const Spec& body = rows->children[0]->spec;
  CHECK(shapes(body) == std::vector<Shape>{{1, 5, 11, 2}, {3, 3, 2, 4}, {1, 2, 5, 4}});
  CHECK(std::get<Conv>(body.op).pad == std::array<std::uint32_t, 2>{0, 0});
  CHECK(std::get<Conv>(body.op).stride == std::array<std::uint32_t, 2>{2, 2});
  CHECK(body.input(0).level == Level::L1);
  CHECK(shapes(rows->children[1]->spec)[0] == Shape{1, 3, 11, 2});  // the last output row: 3 padded rows
  CHECK_THAT(print_impl(rows), Contains("slide[2 pad 1x1] (imgS: 1x5x11x2 L1, outS: 1x2x5x4) <- (img, out)"));
  const ImplPtr cols = applied(Slide{2, 3, Level::L2, Layout::row_major()}, s);
  CHECK(shapes(cols->children[0]->spec) == std::vector<Shape>{{1, 11, 7, 2}, {3, 3, 2, 4}, {1, 5, 3, 4}});
  std::mt19937_64 rng(test_seed(9));
  for (std::int64_t size : {1, 2, 4}) {
    INFO("rows " << size);
    CHECK(interprets_reference(schedule(s, avx512()).slide(1, size, Level::L1).complete().impl(), rng));
    CHECK(interprets_reference(schedule(s, avx512()).slide(2, size, Level::L1).complete().impl(), rng));
  }
  // Pad 3 with stride 2 (conv1's geometry): the first two windows reach the border.
  const Spec wide = strided({1, 12, 12, 3}, {7, 7, 3, 4}, 2, 3);
  CHECK(interprets_reference(schedule(wide, avx512()).slide(1, 1, Level::L1).complete().impl(), rng));
}

TEST_CASE("to_matmul (1): conv only", "[sched][to_matmul]") {
  CHECK_THAT(reason(ToMatmul{}, matmul({4, 4}, {4, 4})), Contains("to_matmul (1): to_matmul needs a conv, not matmul"));
}

TEST_CASE("to_matmul (2): no padding", "[sched][to_matmul]") {
  const Spec s = strided({1, 3, 5, 8}, {3, 3, 8, 4}, 1, 1);
  CHECK_THAT(reason(ToMatmul{}, s), Contains("to_matmul (2): the conv is padded (1x1)"));
}

TEST_CASE("to_matmul (3): a 1x1 window", "[sched][to_matmul]") {
  CHECK_THAT(reason(ToMatmul{}, conv({1, 3, 5, 8}, {3, 1, 8, 4})),
             Contains("to_matmul (3): the filter window is 3x1, not 1x1"));
}

TEST_CASE("to_matmul (4): one output row of one image, or dense rows of stride 1", "[sched][to_matmul]") {
  Spec s = conv({1, 2, 5, 8}, {1, 1, 8, 4});
  CHECK_FALSE(to_matmul_fails(ToMatmul{}, s, avx512()));
  s.operands[0].contiguous = false;
  CHECK_THAT(reason(ToMatmul{}, s), Contains("to_matmul (4): the output 1x2x5x4 is several rows and the image is not dense and row-major"));
  s.operands[0].contiguous = true;
  s.operands[0].layout = Layout::blocked(3, 8);  // placed as row-major in this tile, but not its buffer
  CHECK_THAT(reason(ToMatmul{}, s), Contains("to_matmul (4): the output 1x2x5x4 is several rows and the image is not dense"));
  s = conv({2, 1, 5, 8}, {1, 1, 8, 4});
  s.operands[2].contiguous = false;
  CHECK_THAT(reason(ToMatmul{}, s), Contains("to_matmul (4): the output 2x1x5x4 is several rows and the output is not dense and row-major"));
  CHECK_THAT(reason(ToMatmul{}, strided({1, 3, 5, 8}, {1, 1, 8, 4}, 2, 0)),
             Contains("to_matmul (4): the output 1x2x3x4 is several rows and the stride is 2x2, not 1"));
  // One row of a strided conv needs no run across rows, but reads one image row only.
  CHECK_FALSE(to_matmul_fails(ToMatmul{}, strided({1, 1, 5, 8}, {1, 1, 8, 4}, 2, 0), avx512()));
  CHECK_THAT(reason(ToMatmul{}, strided({1, 2, 5, 8}, {1, 1, 8, 4}, 2, 0)),
             Contains("to_matmul (4): the output 1x1x3x4 is one row but the image 1x2x5x8 has 2 (tile it to the row it "
                      "reads)"));
}

TEST_CASE("to_matmul (5): row-major image and output, filters row-major or in output-channel panels", "[sched][to_matmul]") {
  Spec s = conv({1, 1, 5, 8}, {1, 1, 8, 16});
  s.operands[0].layout = Layout::col_major();
  CHECK_THAT(reason(ToMatmul{}, s), Contains("to_matmul (5): the image is col"));
  s = conv({1, 1, 5, 8}, {1, 1, 8, 16});
  s.operands[1].layout = Layout::blocked(2, 4);
  CHECK_THAT(reason(ToMatmul{}, s), Contains("to_matmul (5): the filters are blk2:4"));
  s.operands[1].layout = Layout::blocked(3, 8);
  const ImplPtr n = applied(ToMatmul{}, s);
  CHECK(n->children[0]->spec.input(1).layout == Layout::blocked(1, 8));
}

TEST_CASE("to_matmul makes the matmul of a 1x1 window over strided image rows", "[sched][to_matmul]") {
  // One output row of 4 positions, stride 2: the lhs reads every second pixel (strided).
  const Spec s = strided({1, 1, 7, 8}, {1, 1, 8, 16}, 2, 0, true);
  CHECK(s.output().shape == Shape{1, 1, 4, 16});
  const ImplPtr n = applied(ToMatmul{}, s);
  const Spec& m = n->children[0]->spec;
  CHECK(text(m) == "matmul[acc] (4x8 f32 GL row strided, 8x16 f32 GL row -> 4x16 f32 GL row)");
  std::mt19937_64 rng(test_seed(9));
  CHECK(interprets_reference(schedule(s, avx512()).apply(ToMatmul{}).complete().impl(), rng));
  // The rank-2 form: K = 1.
  const Spec r2 = conv({1, 6}, {1, 1, 3}, false);
  CHECK(text(applied(ToMatmul{}, r2)->children[0]->spec) == "matmul (6x1 f32 GL row, 1x3 f32 GL row -> 6x3 f32 GL row)");
  CHECK(interprets_reference(schedule(r2, avx512()).apply(ToMatmul{}).complete().impl(), rng));
}

TEST_CASE("to_matmul flattens the dense rows of a pointwise conv into one M", "[sched][to_matmul]") {
  // Two images of 3x5 pixels: M = 2*3*5 = 30 rows of the matmul, walked across rows and images.
  const Spec s = conv({2, 3, 5, 8}, {1, 1, 8, 16}, true);
  const ImplPtr n = applied(ToMatmul{}, s);
  CHECK(text(n->children[0]->spec) == "matmul[acc] (30x8 f32 GL row, 8x16 f32 GL row -> 30x16 f32 GL row)");
  std::mt19937_64 rng(test_seed(10));
  CHECK(interprets_reference(schedule(s, avx512()).apply(ToMatmul{}).complete().impl(), rng));
  // A tile of whole rows inside a taller image (dense, at an origin past the first row), then the matmul tiled
  // so that its register rows straddle image rows.
  const Spec big = conv({1, 6, 5, 8}, {1, 1, 8, 16}, false);
  const ImplPtr tiled = schedule(big, avx512())
                            .apply(TileOut{{1, 3, 5, 16}, false})
                            .apply(ToMatmul{})
                            .apply(TileOut{{4, 16}, false})
                            .complete()
                            .impl();
  CHECK(interprets_reference(tiled, rng));
  CHECK_THAT(print_impl(tiled), Contains("as_matmul (imgTV: 15x8 <- imgT"));
}

TEST_CASE("pad_image (1): conv only", "[sched][pad_image]") {
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, relu({4, 4})), Contains("pad_image (1)"));
}

TEST_CASE("pad_image (2): a padded conv", "[sched][pad_image]") {
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, conv({6, 6}, {3, 3, 2})),
             Contains("pad_image (2): the conv has no padding"));
}

TEST_CASE("pad_image (3): a memory level", "[sched][pad_image]") {
  CHECK_THAT(reason(PadImage{Level::VRF, Layout::row_major()}, strided({6, 6}, {3, 3, 2}, 1, 1)),
             Contains("pad_image (3): the buffer needs a memory level"));
}

TEST_CASE("pad_image (4): not slower than the image", "[sched][pad_image]") {
  Spec s = strided({6, 6}, {3, 3, 2}, 1, 1);
  s.operands[0].level = Level::L1;
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, s), Contains("pad_image (4): level GL is slower than the image's L1"));
}

TEST_CASE("pad_image (5): a valid layout", "[sched][pad_image]") {
  CHECK_THAT(reason(PadImage{Level::GL, Layout::blocked(5, 4)}, strided({6, 6}, {3, 3, 2}, 1, 1)),
             Contains("pad_image (5): layout blk5:4 is invalid for the rank-2 image"));
}

TEST_CASE("pad_image (6): the padded image fits the level", "[sched][pad_image]") {
  CHECK_THAT(reason(PadImage{Level::L1, Layout::row_major()}, strided({1, 56, 56, 64}, {3, 3, 64, 64}, 1, 1)),
             Contains("pad_image (6): the padded image 1x58x58x64 takes 861184 bytes but L1 holds"));
}

TEST_CASE("pad_image zeroes a buffer's border, moves the image in and convolves it unpadded", "[sched][pad_image]") {
  const Spec s = strided({1, 7, 6, 3}, {3, 3, 3, 4}, 2, 1);
  CHECK(s.output().shape == Shape{1, 4, 3, 4});
  const ImplPtr n = applied(PadImage{Level::GL, Layout::row_major()}, s);
  // The padding rows above and below (whole buffer rows), the columns left and right of the image's rows.
  REQUIRE(n->children.size() == 6);
  CHECK(text(n->children[0]->spec) == "zero (-> 1x1x8x3 f32 GL row)");
  CHECK(text(n->children[1]->spec) == "zero (-> 1x1x8x3 f32 GL row unaligned)");
  CHECK(text(n->children[2]->spec) == "zero (-> 1x7x1x3 f32 GL row unaligned strided)");
  CHECK(text(n->children[3]->spec) == "zero (-> 1x7x1x3 f32 GL row unaligned strided)");
  std::vector<Box> border = pad_border(s);
  REQUIRE(border.size() == 4);
  CHECK(border[1].origin == Shape{0, 8, 0, 0});
  CHECK(border[2].origin == Shape{0, 1, 0, 0});
  CHECK(border[3].origin == Shape{0, 1, 7, 0});
  // The interior's runs are the image's rows of 6 pixels (strided:2), which flatten walks as rows of 18 floats.
  CHECK(text(n->children[4]->spec) == "move (1x7x6x3 f32 GL row -> 1x7x6x3 f32 GL row unaligned strided:2)");
  CHECK(text(n->children[5]->spec) ==
        "conv[stride=2] (1x9x8x3 f32 GL row, 3x3x3x4 f32 GL row -> 1x4x3x4 f32 GL row)");
  // Padding in one dimension only: two strips.
  const std::vector<Box> columns = pad_border(parse_spec("conv[pad=0x2] 1x7x6x3 3x3x3x4 f32", avx512()));
  REQUIRE(columns.size() == 2);
  CHECK(columns[1].origin == Shape{0, 0, 8, 0});
  CHECK(columns[1].shape == Shape{1, 7, 2, 3});
  // The left strip starts where the buffer does, but its rows (120 bytes apart) do not all start on a line.
  const Spec cols = parse_spec("conv[pad=0x2] 1x7x6x3 3x3x3x4 f32", avx512());
  CHECK(text(applied(PadImage{Level::GL, Layout::row_major()}, cols)->children[0]->spec) ==
        "zero (-> 1x7x2x3 f32 GL row unaligned strided:2)");
  CHECK(action_text(PadImage{Level::L2, Layout::row_major()}) == "pad_image L2 row");
  // Padding, stride 2, taps one at a time, then the matmul view of each output row.
  std::mt19937_64 rng(test_seed(10));
  const Schedule sch = schedule(s, avx512())
                           .apply(PadImage{Level::GL, Layout::row_major()})
                           .focus("h6")
                           .to_accum()
                           .focus("h7")
                           .tile_out({1, 1, 3, 4})
                           .apply(Split{1, 1})
                           .apply(Split{1, 2})
                           .apply(ToMatmul{})
                           .complete();
  CHECK(interprets_reference(sch.impl(), rng));
  // The interior's copy flattened into 7 rows of 18 floats, each tiled in 4 pieces that straddle pixels.
  const Schedule flat = schedule(s, avx512())
                            .apply(PadImage{Level::GL, Layout::row_major()})
                            .focus("h5")
                            .apply(Flatten{})
                            .tile_out({1, 1, 5})
                            .complete();
  CHECK_THAT(print_impl(flat.impl()), Contains("1x7x18 <- imgp)"));
  CHECK(interprets_reference(flat.impl(), rng));
}

TEST_CASE("pad_image takes out the stride of a strided pointwise conv", "[sched][pad_image]") {
  // Only the pixels the conv reads, every second row and column: a buffer of the output's rows and columns,
  // loaded through a strided view, then the same conv with stride 1, whose rows make one matmul.
  const Spec s = strided({1, 7, 6, 8}, {1, 1, 8, 16}, 2, 0);
  CHECK(s.output().shape == Shape{1, 4, 3, 16});
  CHECK(padded_image_shape(s) == Shape{1, 4, 3, 8});
  CHECK(pad_border(s).empty());
  const ImplPtr n = applied(PadImage{Level::L1, Layout::row_major()}, s);
  REQUIRE(n->children.size() == 2);
  CHECK(text(n->children[0]->spec) == "move (1x4x3x8 f32 GL row unaligned strided -> 1x4x3x8 f32 L1 row)");
  CHECK(text(n->children[1]->spec) == "conv (1x4x3x8 f32 L1 row, 1x1x8x16 f32 GL row -> 1x4x3x16 f32 GL row)");
  CHECK_THAT(print_impl(n), Contains("pad[L1 stride 2x2] imgp <- img"));
  std::mt19937_64 rng(test_seed(11));
  const Schedule sch = schedule(s, avx512()).apply(PadImage{Level::L1, Layout::row_major()}).focus("h2").apply(
      ToMatmul{}).complete();
  CHECK(interprets_reference(sch.impl(), rng));
  // A stride in one dimension only, a batch of two.
  const Spec rows = parse_spec("conv[stride=3x1] 2x7x5x4 1x1x4x8 f32", avx512());
  CHECK(padded_image_shape(rows) == Shape{2, 3, 5, 4});
  CHECK(interprets_reference(schedule(rows, avx512()).apply(PadImage{Level::GL, Layout::row_major()}).complete().impl(),
                             rng));
  // Not with a window, nor on an image without channels or of one channel (the load's runs are channels).
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, strided({1, 7, 7, 8}, {3, 3, 8, 16}, 2, 0)),
             Contains("pad_image (2)"));
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, strided({7, 7}, {1, 1, 4}, 2, 0)),
             Contains("pad_image (2)"));
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, strided({1, 7, 7, 1}, {1, 1, 1, 4}, 2, 0)),
             Contains("pad_image (2)"));
}

TEST_CASE("a padded, strided conv through its taps into the register-tiled matmul (golden)", "[sched][golden]") {
  // oneDNN's brgemm structure: per output row, a 4x16 register tile accumulates over the 3x3 taps and the
  // channels (bcast_fma over image pixels read every second column), filters packed in 16-channel panels.
  const Spec s = strided({1, 8, 8, 4}, {3, 3, 4, 16}, 2, 1);
  const Schedule sch = schedule(s, avx512())
                           .apply(PadImage{Level::GL, Layout::row_major()})
                           .focus("h6")
                           .move_input(1, Level::L1, Layout::blocked(3, 16))
                           .tile_out({1, 1, 4, 16})
                           .move_output(Level::VRF, Layout::row_major(), 16)
                           .to_accum()
                           .apply(Split{1, 1})
                           .apply(Split{1, 2})
                           .apply(ToMatmul{})
                           .split(1)
                           .select(KernelKind::bcast_fma)
                           .complete();
  check_golden("conv_brgemm", print_impl(sch.impl()));
  std::mt19937_64 rng(test_seed(11));
  CHECK(interprets_reference(sch.impl(), rng));
}
