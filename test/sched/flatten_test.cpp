// flatten: one test per numbered precondition, the flat Spec and views it makes (a tile of whole rows at an
// origin past the first row, a compose of two stages), interpreted against the reference, and a golden of a
// flattened relu tiled into registers.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "impl/node.h"
#include "impl/printer.h"
#include "impl/tiling.h"
#include "sched/enumerate.h"
#include "sched/flatten.h"
#include "sched/schedule.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

TEST_CASE("flatten (1): elementwise ops only", "[sched][flatten]") {
  CHECK_THAT(reason(Flatten{}, matmul({4, 4}, {4, 4})),
             Contains("flatten (1): flatten needs an elementwise op (unary, binary, move, zero or a compose of them), "
                      "not matmul"));
  CHECK_THAT(reason(Flatten{}, reducesum({4, 4}, 1)), Contains("flatten (1)"));
  CHECK_THAT(reason(Flatten{}, compose({Matmul{}, Unary{UnaryOp::relu}}, {{4, 4}, {4, 4}})), Contains("flatten (1)"));
  CHECK_FALSE(flatten_fails(Flatten{}, compose({Binary{BinaryOp::add}, Unary{UnaryOp::relu}}, {{4, 4}, {4, 4}}),
                            avx512()));
}

TEST_CASE("flatten: a move or zero of pixels of 3 channels is one flat run of whole registers", "[sched][flatten]") {
  // A tile of 32 pixels of an RGB image copied into a padded image (conv1's pad_image): 32 masked registers of 3
  // lanes by rows, 6 whole registers flat.
  const Target& t = avx512();
  const Spec copy = parse_spec("move (1x1x32x3 f32 GL row -> 1x1x32x3 f32 L2 row)", t);
  const ImplPtr n = applied(Flatten{}, copy);
  CHECK(text(n->children[0]->spec) == "move (96 f32 GL row -> 96 f32 L2 row)");
  const Spec zero = parse_spec("zero 1x3x32x3 f32", t);
  CHECK(text(applied(Flatten{}, zero)->children[0]->spec) == "zero (-> 288 f32 GL row)");
  std::mt19937_64 rng(test_seed(22));
  for (const Spec& s : {copy, zero}) {
    CHECK(interprets_reference(schedule(s, t).apply(Flatten{}).complete().impl(), rng));
  }
  // A strided tile (part of each row) is not flat.
  Spec strided = copy;
  strided.operands[0].contiguous = false;
  CHECK_THAT(reason(Flatten{}, strided), Contains("flatten (5)"));
}

TEST_CASE("flatten (2): rank 2 or more", "[sched][flatten]") {
  CHECK_THAT(reason(Flatten{}, relu({37})), Contains("flatten (2): the output 37 is flat already"));
  CHECK_FALSE(flatten_fails(Flatten{}, relu({2, 3, 5}), avx512()));
}

TEST_CASE("flatten (3): no broadcast input", "[sched][flatten]") {
  CHECK_THAT(reason(Flatten{}, binary(BinaryOp::add, {4, 8}, {1, 8})),
             Contains("flatten (3): operand 1 is 1x8, not the output's 4x8 (a broadcast)"));
}

TEST_CASE("flatten (4): operands in memory", "[sched][flatten]") {
  Spec s = relu({2, 16});
  s.operands[1] = ts({2, 16}, Level::VRF, Layout::row_major(), 16);
  CHECK_THAT(reason(Flatten{}, s), Contains("flatten (4): operand 1 is in VRF"));
}

TEST_CASE("flatten (5): row-major operands whose runs span 2 dimensions or more", "[sched][flatten]") {
  Spec s = relu({4, 5});
  s.operands[0].contiguous = false;  // a tile of part of each row
  CHECK_THAT(reason(Flatten{}, s), Contains("flatten (5): operand 0 (4x5 row, strided) is not row-major with runs "
                                            "over 2 dimensions or more"));
  s = relu({4, 5});
  s.operands[1] = ts({4, 5}, Level::GL, Layout::col_major());
  CHECK_THAT(reason(Flatten{}, s), Contains("flatten (5): operand 1 (4x5 col) is not row-major with runs over 2"));
  s = relu({2, 4, 5});
  s.operands[0].contiguous = false;
  s.operands[0].run_dims = 2;  // runs of whole 4x5 planes: flat within each
  CHECK_FALSE(flatten_fails(Flatten{}, s, avx512()));
}

TEST_CASE("flatten merges the dimensions that every operand's runs span", "[sched][flatten]") {
  const Target& t = avx512();
  // Rows of 6 pixels of 3 channels copied into the interior of a padded image: 7 runs of 18 floats each.
  const Spec copy = parse_spec("move (1x7x6x3 f32 GL row -> 1x7x6x3 f32 L2 row unaligned strided:2)", t);
  const ImplPtr n = applied(Flatten{}, copy);
  CHECK(text(n->children[0]->spec) == "move (1x7x18 f32 GL row -> 1x7x18 f32 L2 row unaligned strided)");
  CHECK(reshape_views(copy)[1] == std::vector<ViewDim>{ViewDim{0, 1}, ViewDim{1, 1}, ViewDim{3, 1, 1}});
  // A row of the flat child is one run, contiguous: it flattens no further (rank 1 is flat).
  const TensorSpec row = tile_tensor(n->children[0]->spec.output(), {1, 1, 18});
  CHECK(row.contiguous);
  // Runs over 3 dimensions in one operand, 2 in the other: 2 are merged, the first keeps runs over 2 of 3.
  const Spec mixed = parse_spec("relu (2x3x4x5 f32 GL row strided:3 -> 2x3x4x5 f32 GL row strided:2)", t);
  CHECK(text(applied(Flatten{}, mixed)->children[0]->spec) ==
        "relu (2x3x20 f32 GL row strided:2 -> 2x3x20 f32 GL row strided)");
  // The text form round-trips, and runs over as many dimensions as the operand has are refused.
  CHECK(spec_text(parse_spec(spec_text(copy), t)) == spec_text(copy));
  CHECK_THROWS_WITH(parse_spec("relu (2x3 f32 GL row strided:2 -> 2x3 f32 GL row)", t),
                    Contains("operand 0 has runs over 2 dimensions (strided:2)"));
}

TEST_CASE("flatten walks whole rows as one run, from any origin", "[sched][flatten]") {
  const Spec s = relu({7, 5});
  const ImplPtr n = applied(Flatten{}, s);
  CHECK(text(n->children[0]->spec) == "relu (35 f32 GL row -> 35 f32 GL row)");
  const std::vector<Action> actions = enumerate_actions(s, avx512());
  CHECK(std::any_of(actions.begin(), actions.end(),
                    [](const Action& a) { return std::holds_alternative<Flatten>(a); }));
  std::mt19937_64 rng(test_seed(21));
  CHECK(interprets_reference(schedule(s, avx512()).apply(Flatten{}).complete().impl(), rng));
  // Rows 3 to 6 of 7 (dense, past the first row), flattened, then tiled by 16 so that tiles straddle rows.
  const ImplPtr tiled = schedule(s, avx512())
                            .tile_out({4, 5})
                            .apply(Flatten{})
                            .tile_out({16})
                            .complete()
                            .impl();
  CHECK(interprets_reference(tiled, rng));
  // A compose of an add and a relu: three operands flattened alike.
  const Spec c = compose({Binary{BinaryOp::add}, Unary{UnaryOp::relu}}, {{3, 7}, {3, 7}});
  CHECK(text(applied(Flatten{}, c)->children[0]->spec) ==
        "compose[add, relu] (21 f32 GL row, 21 f32 GL row -> 21 f32 GL row)");
  CHECK(interprets_reference(schedule(c, avx512()).apply(Flatten{}).tile_out({8}).complete().impl(), rng));
}

TEST_CASE("a relu of odd rows flattened into whole registers (golden)", "[sched][golden]") {
  // 9x7 = 63 elements: three whole registers and one of 15 lanes, instead of a masked register per row.
  const Spec s = relu({9, 7});
  const Schedule sch = schedule(s, avx512())
                           .apply(Flatten{})
                           .move_input(0, Level::VRF, Layout::blocked(0, 16), 16)
                           .move_output(Level::VRF, Layout::blocked(0, 16), 16)
                           .tile_out({16})
                           .select(KernelKind::vec_unary)
                           .complete();
  check_golden("flatten", print_impl(sch.impl()));
  std::mt19937_64 rng(test_seed(22));
  CHECK(interprets_reference(sch.impl(), rng));
}

TEST_CASE("flatten of a move of a conv's output seen as a matmul's walks the buffer's dimensions", "[sched][flatten]") {
  // The load of the output of a 1x1 conv's as_matmul (a view of 2 of the output's 4 dimensions), flattened: the
  // walk across the view's dimensions is one across the buffer's (impl/view.h's reshaped; it asserted before).
  const Target& t = avx512();
  const Spec s = parse_spec("conv[acc] (1x1x3x2 f32 L2 row, 1x1x2x5 f32 GL row -> 1x1x3x5 f32 L1 row unaligned)", t);
  const Schedule moved = schedule(s, t).apply(ToMatmul{}).move_output(Level::L1);
  const std::vector<OpenHole> holes = moved.holes();
  const auto load = std::find_if(holes.begin(), holes.end(), [](const OpenHole& h) {
    return std::holds_alternative<Move>(h.spec.op) && h.spec.output().aligned;  // the load into the copy
  });
  REQUIRE(load != holes.end());
  const Schedule sch = moved.focus(load->name).apply(Flatten{}).complete();
  CHECK_THAT(print_impl(sch.impl()), Contains("flatten (outVV: 15 <- outV"));
  std::mt19937_64 rng(test_seed(23));
  CHECK(interprets_reference(sch.impl(), rng));
}

TEST_CASE("flatten of a view of a column-major buffer placed as row-major walks it by row-major offsets",
          "[sched][flatten]") {
  // The zero of an accumulating matmul's output, a view (as_matmul) of a slide's 1x1x1 tile of a column-major
  // 1x3x1 output: the buffer's elements are where row-major would put them, and the flat walk wraps as row-major
  // (seed 25 of the sched property test asserted here).
  const Target& t = avx512();
  const Spec s = parse_spec("conv (1x3 f32 L2 row unaligned, 1x1x1 f32 GL blk1:4 -> 1x3x1 f32 L1 col)", t);
  const Schedule sch =
      schedule(s, t).slide(1, 1, Level::L1).apply(ToMatmul{}).to_accum().focus("h1").apply(Flatten{}).complete();
  CHECK_THAT(print_impl(sch.impl()), Contains("flatten ("));
  std::mt19937_64 rng(test_seed(24));
  CHECK(interprets_reference(sch.impl(), rng));
}

TEST_CASE("flatten of a view whose innermost dimension has extent 1 walks the dimension before it",
          "[sched][flatten]") {
  // A 12x12 image of one channel as a matmul's 144x1 lhs, aliased in L1, then copied: the copy's load, flattened,
  // walks the view's 144 pixels, which walk the image's two dimensions (seed 623 of the sched property test
  // asserted here: the walk took the view's last dimension, of extent 1, for the one it steps along).
  const Target& t = avx512();
  const Spec s = parse_spec("conv (12x12 f32 GL row unaligned, 1x1x2 f32 GL col -> 12x12x2 f32 GL row unaligned)", t);
  const Schedule copied =
      schedule(s, t).apply(ToMatmul{}).move_input(0, Level::L1).move_input(0, Level::L1, Layout::row_major(), 0);
  const Schedule sch = copied.focus("h1").apply(Flatten{}).complete();
  CHECK_THAT(print_impl(sch.impl()), Contains("flatten (imgVrV: 144 <- imgVr"));
  std::mt19937_64 rng(test_seed(25));
  CHECK(interprets_reference(sch.impl(), rng));
}

TEST_CASE("flatten of a view across buffer dimensions with one of extent 1 between them", "[sched][flatten]") {
  // The zero of a 1x1 conv's output 3x1x4 seen as a matmul's 3x4: its 3 rows walk the buffer's first dimension
  // alone (the one after it has extent 1), its columns the last; flattened, one walk of 12 across all three (seeds
  // 648 and 690 of the sched property test asserted here).
  const Target& t = avx512();
  const Spec s = parse_spec("conv (3x1x1 f32 L2 row, 1x1x1x4 f32 L2 row -> 3x1x4 f32 GL row) serial", t);
  const Schedule sch = schedule(s, t).apply(ToMatmul{}).to_accum().focus("h1").apply(Flatten{}).complete();
  CHECK_THAT(print_impl(sch.impl()), Contains("flatten (outVV: 12 <- outV"));
  std::mt19937_64 rng(test_seed(26));
  CHECK(interprets_reference(sch.impl(), rng));
}
