// A conv with an elementwise epilogue (compose[conv, add, relu]) slides and pads its image like the conv: the
// epilogue's operands follow the output (a bias broadcast along the slid dimension stays whole), the body's conv
// is unpadded, the Impls interpret to the reference, and the search offers the conv's steps but buffers the
// epilogue only where it pays.
#include <catch2/catch.hpp>

#include <algorithm>

#include "helpers.h"
#include "impl/printer.h"
#include "sched/enumerate.h"
#include "sched/schedule.h"
#include "spec/conv_geometry.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

namespace {

std::vector<Shape> shapes(const Spec& s) {
  std::vector<Shape> out;
  for (const auto& t : s.operands) out.push_back(t.shape);
  return out;
}

/// A compose[conv[stride, pad], add, relu] Spec in short form, all in GL row-major.
Spec fused(const std::string& text) { return parse_spec(text, avx512()); }

}  // namespace

TEST_CASE("leading_conv: a conv, or the head of a conv with an elementwise epilogue", "[sched][slide]") {
  CHECK(leading_conv(fused("compose[conv[pad=1], add, relu] 1x6x6x2 3x3x2x4 1x1x1x4 f32").op)->pad ==
        std::array<std::uint32_t, 2>{1, 1});
  CHECK(leading_conv(conv({6, 6}, {3, 3, 2}).op) != nullptr);
  CHECK(leading_conv(compose({Conv{}, ReduceSum{2, false}, Conv{}}, {{10, 10}, {5, 5, 6}, {5, 5, 6}}).op) == nullptr);
  CHECK(leading_conv(compose({Matmul{}, Unary{}}, {{4, 4}, {4, 4}}).op) == nullptr);
  CHECK(leading_conv(relu({4, 4}).op) == nullptr);
}

TEST_CASE("slide (1): a conv or a conv with an elementwise epilogue", "[sched][slide]") {
  CHECK_THAT(reason(Slide{0, 2, Level::L1, {}}, relu({4, 4})),
             Contains("slide (1): slide needs a conv or a conv with an elementwise epilogue, not relu"));
  const Spec figure2 = compose({Conv{}, ReduceSum{2, false}, Conv{}}, {{10, 10}, {5, 5, 6}, {5, 5, 6}});
  CHECK_THAT(reason(Slide{0, 2, Level::L1, {}}, figure2), Contains("slide (1)"));
  CHECK_THAT(reason(PadImage{Level::GL, Layout::row_major()}, figure2), Contains("pad_image (1)"));
}

TEST_CASE("slide on a padded, strided conv with a bias and relu: the bias whole, the body's conv unpadded",
          "[sched][slide]") {
  const Spec s = fused("compose[conv[stride=2,pad=1], add, relu] 1x9x9x2 3x3x2x4 1x1x1x4 f32");
  CHECK(s.output().shape == Shape{1, 5, 5, 4});
  const ImplPtr rows = applied(Slide{1, 2, Level::L1, Layout::row_major()}, s);
  const Loop& loop = std::get<Loop>(rows->kind);
  CHECK(loop.window->border == decltype(loop.window->border){0, 1, 1, 0});
  CHECK(loop.operands[0][1] == DimMap{0, 2, 2});   // the image's rows: halo 2, stride 2
  CHECK(loop.operands[2][1] == DimMap{-1, 0, 1});  // the bias: broadcast, whole
  CHECK(loop.operands[3][1] == DimMap{0, 0, 1});   // the output's rows
  const Spec& body = rows->children[0]->spec;
  CHECK(shapes(body) == std::vector<Shape>{{1, 5, 11, 2}, {3, 3, 2, 4}, {1, 1, 1, 4}, {1, 2, 5, 4}});
  CHECK(leading_conv(body.op)->pad == std::array<std::uint32_t, 2>{0, 0});
  CHECK(leading_conv(body.op)->stride == std::array<std::uint32_t, 2>{2, 2});
  CHECK(std::get<Compose>(body.op).stages.size() == 3);
  CHECK_THAT(print_impl(rows), Contains("slide[2 pad 1x1] (in0S: 1x5x11x2 L1, outS: 1x2x5x4) <- (in0, out)"));
  std::mt19937_64 rng(test_seed(31));
  for (std::int64_t size : {1, 2, 3}) {
    INFO("size " << size);
    CHECK(interprets_reference(schedule(s, avx512()).slide(1, size, Level::L1).complete().impl(), rng));
    CHECK(interprets_reference(schedule(s, avx512()).slide(2, size, Level::L2).complete().impl(), rng));
  }
}

TEST_CASE("a padded conv's bias and relu on its register tile: slide, a VRF pipeline, taps, brgemm (golden)",
          "[sched][golden]") {
  // Each output row: its padded window in L1, the 6x16 tile accumulated in registers over the 3x3 taps and the
  // channels (bcast_fma), then the bias added and relu applied to the registers before the one store.
  const Spec s = fused("compose[conv[pad=1], add, relu] 1x6x6x4 3x3x4x16 1x1x1x16 f32");
  Schedule sch = schedule(s, avx512())
                     .slide(1, 1, Level::L1)
                     .bufferize(1, Level::VRF)
                     .to_accum()
                     .apply(Split{1, 1})
                     .apply(Split{1, 2})
                     .apply(ToMatmul{})
                     .split(1)
                     .select(KernelKind::bcast_fma);
  // The epilogue, compose[add, relu] on the register tile: add into registers, relu from them to the output.
  const std::vector<OpenHole> holes = sch.holes();
  const auto epilogue = std::find_if(holes.begin(), holes.end(),
                                     [](const OpenHole& h) { return std::holds_alternative<Compose>(h.spec.op); });
  REQUIRE(epilogue != holes.end());
  sch = sch.focus(epilogue->name).bufferize(1, Level::VRF).complete();
  const std::string printed = print_impl(sch.impl());
  CHECK_THAT(printed, Contains("pipeline[cut 1, VRF row v16] buf1: 1x1x6x16"));
  CHECK_THAT(printed, Contains("pipeline[cut 1, VRF row v16] buf2: 1x1x6x16"));
  CHECK_THAT(printed, Contains("vec_unary("));
  check_golden("conv_epilogue", printed);
  std::mt19937_64 rng(test_seed(34));
  CHECK(interprets_reference(sch.impl(), rng));
}

TEST_CASE("slide on a conv with a residual add: the residual follows the output", "[sched][slide]") {
  const Spec s = fused("compose[conv[pad=1], add] 1x6x6x2 3x3x2x4 1x6x6x4 f32");
  const ImplPtr rows = applied(Slide{1, 2, Level::L1, Layout::row_major()}, s);
  CHECK(std::get<Loop>(rows->kind).operands[2][1] == DimMap{0, 0, 1});
  CHECK(shapes(rows->children[0]->spec) == std::vector<Shape>{{1, 4, 8, 2}, {3, 3, 2, 4}, {1, 2, 6, 4}, {1, 2, 6, 4}});
  std::mt19937_64 rng(test_seed(32));
  CHECK(interprets_reference(schedule(s, avx512()).slide(1, 4, Level::L1).complete().impl(), rng));
  CHECK(interprets_reference(schedule(s, avx512()).slide(2, 1, Level::L1).complete().impl(), rng));
}

TEST_CASE("pad_image on a conv with an epilogue: the epilogue runs on the unpadded conv of the buffer",
          "[sched][pad_image]") {
  const Spec s = fused("compose[conv[stride=2,pad=1], add, relu] 1x7x6x3 3x3x3x4 1x1x1x4 f32");
  const ImplPtr n = applied(PadImage{Level::GL, Layout::row_major()}, s);
  REQUIRE(n->children.size() == 6);
  CHECK(text(n->children[5]->spec) ==
        "compose[conv[stride=2], add, relu] (1x9x8x3 f32 GL row, 3x3x3x4 f32 GL row, 1x1x1x4 f32 GL row -> "
        "1x4x3x4 f32 GL row)");
  CHECK_THAT(print_impl(n), Contains("pad[GL 1x1] in0p <- in0"));
  std::mt19937_64 rng(test_seed(33));
  CHECK(interprets_reference(schedule(s, avx512()).apply(PadImage{Level::L1, Layout::row_major()}).complete().impl(),
                             rng));
}

TEST_CASE("enumerate: a conv's epilogue slides and pads with it, cut off whole, buffered in memory only whole or "
          "in L1", "[sched][enumerate]") {
  const Target t = avx512();
  const Spec s = fused("compose[conv[pad=1], add, relu] 1x6x10x8 3x3x8x32 1x1x1x32 f32");
  const auto actions = enumerate_actions(s, t);
  CHECK(contains(actions, Action{Slide{1, 2, Level::L1, Layout::row_major()}}));
  CHECK(contains(actions, Action{PadImage{Level::L1, Layout::row_major()}}));
  // Cut after the conv only; in memory where the output is whole, not in a tile of it.
  for (const Bufferize& b : only<Bufferize>(actions)) CHECK(b.cut == 1);
  CHECK(contains(actions, Action{Bufferize{1, Level::GL, Layout::row_major()}}));
  // In a tile of it: in registers, or a padded conv's in L1 (the conv accumulates there over its taps).
  Spec tile = s;
  tile.operands.back().set_contiguous(false);
  tile.serial_only = true;
  const auto tile_cuts = only<Bufferize>(enumerate_actions(tile, t));
  for (const Bufferize& b : tile_cuts) CHECK((b.level == Level::VRF || b.level == Level::L1));
  CHECK(contains(enumerate_actions(tile, t), Action{Bufferize{1, Level::L1, Layout::row_major()}}));
  Spec unpadded_tile = fused("compose[conv, add, relu] 1x6x10x8 3x3x8x32 1x1x1x32 f32");
  unpadded_tile.operands.back().set_contiguous(false);
  for (const Bufferize& b : only<Bufferize>(enumerate_actions(unpadded_tile, t))) CHECK(b.level == Level::VRF);
  // A pointwise conv slides nothing.
  CHECK(only<Slide>(enumerate_actions(fused("compose[conv, relu] 1x6x10x8 1x1x8x32 f32"), t)).empty());
  // An elementwise pipeline fuses in registers where the target has them, in memory on a scalar target.
  const Spec ew = compose({Binary{BinaryOp::add}, Unary{}}, {{4, 32}, {1, 32}});
  for (const Bufferize& b : only<Bufferize>(enumerate_actions(ew, t))) CHECK(b.level == Level::VRF);
  CHECK_FALSE(only<Bufferize>(enumerate_actions(ew, t)).empty());
  CHECK(contains(enumerate_actions(ew, scalar_target()), Action{Bufferize{1, Level::GL, Layout::row_major()}}));
  // Cut after its first stage only: the rest is a shorter pipeline that cuts again.
  const Spec three = compose({Binary{BinaryOp::add}, Binary{BinaryOp::add}, Unary{}}, {{4, 32}, {1, 32}, {4, 32}});
  for (const Bufferize& b : only<Bufferize>(enumerate_actions(three, t))) CHECK(b.cut == 1);
  // Elementwise inputs and a conv epilogue's move into caches as aliases only; the conv's image is packed.
  for (const Spec& spec : {ew, three, binary(BinaryOp::add, {64, 64}, {1, 64}), relu({64, 64})}) {
    for (const MoveTo& m : only<MoveTo>(enumerate_actions(spec, t))) {
      if (is_register_level(m.level)) continue;
      INFO(action_text(Action{m}));
      CHECK(m.layout == spec.operands[m.operand].layout);
    }
  }
  // A shortcut of several rows would pack into panels (1x6x10x32 in blk3:16 is another placement); the filters do.
  const Spec shortcut = fused("compose[conv[pad=1], add, add, relu] 1x6x10x8 3x3x8x32 1x1x1x32 1x6x10x32 f32");
  const auto with_shortcut = enumerate_actions(shortcut, t);
  for (const MoveTo& m : only<MoveTo>(with_shortcut)) {
    if (m.operand >= 2 && m.operand < 4 && !is_register_level(m.level)) {
      INFO(action_text(Action{m}));
      CHECK(m.layout == shortcut.operands[m.operand].layout);
    }
  }
  CHECK(contains(with_shortcut, Action{MoveTo{3, Level::L1, Layout::row_major(), 0}}));
  CHECK(contains(with_shortcut, Action{MoveTo{1, Level::L1, Layout::blocked(3, 16), 0}}));
}
