// tile_out, split and slide: one test per numbered precondition (expecting its reason) and the loops they make:
// operand maps of every op kind, conv halos, broadcast dimensions, Compose propagation and boundary bodies.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "impl/interpreter.h"
#include "sched/enumerate.h"
#include "sched/schedule.h"
#include "sched/tile_out.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

namespace {

TensorSpec vrf(Shape s) { return ts(std::move(s), Level::VRF, Layout::row_major(), 16); }

/// The operand shapes of the first body of the loop the action makes.
std::vector<Shape> body_shapes(const Action& a, const Spec& s) {
  const ImplPtr n = applied(a, s);
  std::vector<Shape> out;
  for (const auto& t : n->children.front()->spec.operands) out.push_back(t.shape);
  return out;
}

}  // namespace

TEST_CASE("tile_out (1): the tile's rank is the output's", "[sched][tile_out]") {
  CHECK_THAT(reason(TileOut{{4}}, matmul({8, 8}, {8, 8})), Contains("tile_out (1): tile 4 has rank 1"));
}

TEST_CASE("tile_out (2): every tile extent in [1, extent]", "[sched][tile_out]") {
  CHECK_THAT(reason(TileOut{{4, 0}}, matmul({8, 8}, {8, 8})),
             Contains("tile_out (2): tile extent 0 in dimension 1 is below 1"));
  CHECK_THAT(reason(TileOut{{9, 4}}, matmul({8, 8}, {8, 8})),
             Contains("tile_out (2): tile extent 9 in dimension 0 exceeds the output's 8"));
}

TEST_CASE("tile_out (3): the tile differs from the output", "[sched][tile_out]") {
  CHECK_THAT(reason(TileOut{{8, 8}}, matmul({8, 8}, {8, 8})), Contains("tile_out (3): tile 8x8 is the whole output"));
  CHECK_THAT(reason(TileOut{{}}, reducesum({5}, 0)), Contains("tile_out (3)"));
}

TEST_CASE("tile_out (3): the whole output of a conv whose image has rows it never reads", "[sched][tile_out]") {
  // One output pixel of a stride-2 conv on 2 rows: the second row is never read, and without this tile the Spec
  // had no Impl at all (to_matmul wants the one row it reads; seed 154 of the synth property tests).
  const Target& t = avx512();
  const Spec s = parse_spec("conv[stride=2x1] (2x1 f32 GL row, 1x1x9 f32 GL row -> 1x1x9 f32 GL row)", t);
  const ImplPtr n = applied(TileOut{{1, 1, 9}}, s);
  CHECK(text(n->children[0]->spec) == "conv[stride=2x1] (1x1 f32 GL row, 1x1x9 f32 GL row -> 1x1x9 f32 GL row)");
  const std::vector<Action> actions = enumerate_actions(s, t);
  CHECK(std::count_if(actions.begin(), actions.end(), [&](const Action& a) {
          const auto* tile = std::get_if<TileOut>(&a);
          return tile && tile->tile == s.output().shape && !tile->parallel;
        }) == 1);
  std::mt19937_64 rng(test_seed(31));
  CHECK(interprets_reference(schedule(s, t).tile_out({1, 1, 9}).apply(ToMatmul{}).complete().impl(), rng));
  // Columns too; but a padded conv, or one that reads every row, keeps the rule.
  CHECK_FALSE(tile_out_fails(TileOut{{1, 2, 2, 4}}, parse_spec("conv[stride=2] 1x4x5x3 1x1x3x4 f32", t), t));
  CHECK_THAT(reason(TileOut{{1, 2, 2, 4}}, parse_spec("conv[stride=2] 1x3x3x3 1x1x3x4 f32", t)),
             Contains("tile_out (3): tile 1x2x2x4 is the whole output (and the image has no rows or columns"));
  CHECK_THAT(reason(TileOut{{1, 2, 2, 4}}, parse_spec("conv[stride=2,pad=1] 1x4x4x3 3x3x3x4 f32", t)),
             Contains("tile_out (3)"));
}

TEST_CASE("tile_out (4): no parallel loop in a serial_only Spec", "[sched][tile_out]") {
  Spec s = matmul({8, 8}, {8, 8});
  CHECK(applied(TileOut{{4, 4}, true}, s)->children.front()->spec.serial_only);
  s.serial_only = true;
  CHECK_THAT(reason(TileOut{{4, 4}, true}, s), Contains("tile_out (4): a parallel loop in a serial_only Spec"));
  applied(TileOut{{4, 4}, false}, s);
}

TEST_CASE("tile_out (5): VRF operands stay whole registers", "[sched][tile_out]") {
  const Spec s{Unary{}, {vrf({2, 32}), vrf({2, 32})}, false};
  applied(TileOut{{1, 16}}, s);
  CHECK_THAT(reason(TileOut{{2, 8}}, s), Contains("tile_out (5): operand 0 (2x32 in VRF, vector size 16) would be cut"));
  CHECK_THAT(reason(TileOut{{1, 24}}, s), Contains("tile_out (5)"));  // the boundary tile holds 8
}

TEST_CASE("tile_out (5): register panels are cut at whole registers, only a row's end is partial", "[sched][tile_out]") {
  const TensorSpec p = ts({3, 40}, Level::VRF, Layout::blocked(1, 16), 16);
  const Spec s{Unary{}, {p, p}, false};
  applied(TileOut{{1, 16}}, s);  // the boundary tile 1x8 ends each row
  applied(TileOut{{2, 32}}, s);
  applied(TileOut{{1, 40}}, s);
  CHECK_THAT(reason(TileOut{{1, 8}}, s), Contains("tile_out (5): operand 0 (3x40 in VRF, vector size 16) would be cut"));
  CHECK_THAT(reason(TileOut{{3, 24}}, s), Contains("tile_out (5)"));
}

TEST_CASE("tile_out (6): a Move between VRF and memory keeps the memory tiles contiguous", "[sched][tile_out]") {
  const Spec s = move_spec(ts({2, 10, 8}), vrf({2, 10, 8}));
  applied(TileOut{{1, 2, 8}}, s);
  CHECK_THAT(reason(TileOut{{2, 8, 8}}, s),
             Contains("tile_out (6): the memory side's tile 2x8x8 is strided; vec_load and vec_store need it"));
}

TEST_CASE("tile_out (8): a register tile's column tiles fit with their rows' shared broadcasts", "[sched][tile_out]") {
  // One k-step of a matmul into registers (avx512: 32 registers of 16): 7x64 as two 7x32 calls needs 28
  // accumulators, 7 broadcasts and 2 rhs registers; 6x64 as two 6x32 calls needs 24 + 6 + 2 = 32.
  const auto step = [](std::int64_t m) {
    return Spec{Matmul{true}, {ts({m, 1}), ts({1, 64}), vrf({m, 64})}, false};
  };
  CHECK_THAT(reason(TileOut{{7, 32}}, step(7)),
             Contains("tile_out (8): columns of 32 of the 7x64 register tile need 37 vector registers"));
  applied(TileOut{{6, 32}}, step(6));
  applied(TileOut{{1, 64}}, step(7));  // rows alone share the rhs, not the broadcasts
}

TEST_CASE("tile_out maps operands by op kind", "[sched][tile_out]") {
  CHECK(body_shapes(TileOut{{6, 64}}, matmul({64, 32}, {32, 64})) == std::vector<Shape>{{6, 32}, {32, 64}, {6, 64}});
  CHECK(body_shapes(TileOut{{2, 3, 5}}, matmul({4, 6, 7}, {4, 7, 5})) ==
        std::vector<Shape>{{2, 3, 7}, {2, 7, 5}, {2, 3, 5}});
  // Conv forms: image rows and columns with the filter halo, channels whole, filters by f.
  CHECK(body_shapes(TileOut{{32, 32, 1}}, conv({128, 128}, {5, 5, 32})) ==
        std::vector<Shape>{{36, 36}, {5, 5, 1}, {32, 32, 1}});
  CHECK(body_shapes(TileOut{{2, 3, 2}}, conv({6, 7, 3}, {3, 2, 3, 4})) ==
        std::vector<Shape>{{4, 4, 3}, {3, 2, 3, 2}, {2, 3, 2}});
  CHECK(body_shapes(TileOut{{1, 2, 2, 4}}, conv({2, 5, 5, 3}, {2, 2, 3, 4})) ==
        std::vector<Shape>{{1, 3, 3, 3}, {2, 2, 3, 4}, {1, 2, 2, 4}});
  // Broadcast dimensions stay whole.
  CHECK(body_shapes(TileOut{{2, 3}}, binary(BinaryOp::add, {4, 6}, {1, 6})) ==
        std::vector<Shape>{{2, 3}, {1, 3}, {2, 3}});
  CHECK(body_shapes(TileOut{{2, 4}}, reducesum({4, 5, 8}, 1)) == std::vector<Shape>{{2, 5, 4}, {2, 4}});
  CHECK(body_shapes(TileOut{{3}}, zero({7})) == std::vector<Shape>{{3}});
}

TEST_CASE("tile_out through a Compose: halos add up over conv stages", "[sched][tile_out]") {
  // conv 10x10 (3x3x2) -> 8x8x2, conv (3x3x2x4) -> 6x6x4: a 2x2 output tile needs a 6x6 image window.
  const Spec s = compose({Conv{}, Conv{}}, {{10, 10}, {3, 3, 2}, {3, 3, 2, 4}});
  CHECK(body_shapes(TileOut{{2, 2, 4}}, s) == std::vector<Shape>{{6, 6}, {3, 3, 2}, {3, 3, 2, 4}, {2, 2, 4}});
  CHECK(body_shapes(TileOut{{6, 6, 1}}, s) == std::vector<Shape>{{10, 10}, {3, 3, 2}, {3, 3, 2, 1}, {6, 6, 1}});
  // Figure 2: conv, reducesum, conv.
  const Spec f2 = compose({Conv{}, ReduceSum{2, false}, Conv{}}, {{10, 10}, {5, 5, 6}, {5, 5, 6}});
  CHECK(body_shapes(TileOut{{1, 2, 3}}, f2) == std::vector<Shape>{{9, 10}, {5, 5, 6}, {5, 5, 3}, {1, 2, 3}});
  // matmul then add of a broadcast row.
  const Spec mm = compose({Matmul{}, Binary{BinaryOp::add}}, {{6, 4}, {4, 8}, {1, 8}});
  CHECK(body_shapes(TileOut{{2, 4}}, mm) == std::vector<Shape>{{2, 4}, {4, 4}, {1, 4}, {2, 4}});
}

TEST_CASE("tile_out leaves boundary bodies when the tile does not divide", "[sched][tile_out]") {
  const ImplPtr n = applied(TileOut{{4, 3}}, matmul({10, 6}, {6, 7}));
  REQUIRE(n->children.size() == 4);
  CHECK(n->children[3]->spec.output().shape == Shape{2, 1});
  const auto& loop = std::get<Loop>(n->kind);
  CHECK(loop.kind == LoopKind::tile);
  CHECK(loop.axes == LoopAxes{{10, 4}, {7, 3}});
  // Only tiled dimensions get an axis.
  CHECK(std::get<Loop>(applied(TileOut{{10, 3}}, matmul({10, 6}, {6, 7}))->kind).axes.size() == 1);
}

TEST_CASE("split (1): the op has a reduction dimension", "[sched][split]") {
  CHECK_THAT(reason(Split{2}, relu({4, 4})), Contains("split (1): relu has no reduction dimension"));
  CHECK_THAT(reason(Split{2}, conv({6, 6}, {3, 3, 2}, true)),
             Contains("split (1): conv with a rank-2 image has no channel dimension"));
  CHECK_THAT(reason(Split{1}, compose({Matmul{}, Unary{}}, {{4, 4}, {4, 4}})), Contains("split (1)"));
}

TEST_CASE("split (2): the Spec accumulates", "[sched][split]") {
  CHECK_THAT(reason(Split{2}, matmul({4, 4}, {4, 4})),
             Contains("split (2): matmul does not accumulate into its output; apply to_accum first"));
}

TEST_CASE("split (3): 1 <= k < the reduction extent", "[sched][split]") {
  CHECK_THAT(reason(Split{0}, matmul({4, 8}, {8, 4}, true)), Contains("split (3): split size 0 is not in [1, 8)"));
  CHECK_THAT(reason(Split{8}, matmul({4, 8}, {8, 4}, true)), Contains("split (3): split size 8 is not in [1, 8)"));
}

TEST_CASE("split (4): VRF operands stay whole registers", "[sched][split]") {
  const Spec s{ReduceSum{1, true}, {vrf({2, 16}), ts({2})}, false};
  CHECK_THAT(reason(Split{8}, s), Contains("split (4): operand 0 (2x16 in VRF, vector size 16)"));
}

TEST_CASE("split tiles K, channels and the reduced axis", "[sched][split]") {
  CHECK(body_shapes(Split{3}, matmul({4, 8}, {8, 5}, true)) == std::vector<Shape>{{4, 3}, {3, 5}, {4, 5}});
  CHECK(body_shapes(Split{2}, matmul({2, 4, 8}, {2, 8, 5}, true)) ==
        std::vector<Shape>{{2, 4, 2}, {2, 2, 5}, {2, 4, 5}});
  CHECK(body_shapes(Split{1}, conv({6, 6, 3}, {3, 3, 3, 2}, true)) ==
        std::vector<Shape>{{6, 6, 1}, {3, 3, 1, 2}, {4, 4, 2}});
  CHECK(body_shapes(Split{2}, conv({1, 6, 6, 3}, {3, 3, 3, 2}, true)) ==
        std::vector<Shape>{{1, 6, 6, 2}, {3, 3, 2, 2}, {1, 4, 4, 2}});
  CHECK(body_shapes(Split{4}, reducesum({3, 9}, 1, true)) == std::vector<Shape>{{3, 4}, {3}});
  CHECK(std::get<Loop>(applied(Split{4}, reducesum({3, 9}, 1, true))->kind).kind == LoopKind::split);
}

TEST_CASE("slide (2): a spatial output dimension", "[sched][slide]") {
  CHECK_THAT(reason(Slide{2, 2, Level::L1, {}}, conv({8, 8}, {3, 3, 4})),
             Contains("slide (2): dimension 2 of the output 6x6x4 is not spatial (0 or 1)"));
  CHECK_THAT(reason(Slide{0, 1, Level::L1, {}}, conv({2, 8, 8, 1}, {3, 3, 1, 4})), Contains("(1 or 2)"));
}

TEST_CASE("slide (3): 1 <= size < extent", "[sched][slide]") {
  CHECK_THAT(reason(Slide{0, 6, Level::L1, {}}, conv({8, 8}, {3, 3, 4})), Contains("slide (3): size 6 is not in [1, 6)"));
  CHECK_THAT(reason(Slide{1, 0, Level::L1, {}}, conv({8, 8}, {3, 3, 4})), Contains("slide (3)"));
}

TEST_CASE("slide (4): the level exists", "[sched][slide]") {
  CHECK_THAT(reason(Slide{0, 2, Level::VRF, {}}, conv({8, 8}, {3, 3, 4}), scalar_target()),
             Contains("slide (4): target scalar has no level VRF"));
}

TEST_CASE("slide (5): not a register level", "[sched][slide]") {
  CHECK_THAT(reason(Slide{0, 2, Level::RF, {}}, conv({8, 8}, {3, 3, 4})),
             Contains("slide (5): a window cannot live in the register level RF"));
}

TEST_CASE("slide (6): the window is not slower than the image", "[sched][slide]") {
  Spec s = conv({8, 8}, {3, 3, 4});
  s.operands[0].level = Level::L1;
  CHECK_THAT(reason(Slide{0, 2, Level::L2, {}}, s), Contains("slide (6): the window level L2 is slower than the image's L1"));
  applied(Slide{0, 2, Level::L1, {}}, s);
}

TEST_CASE("slide (7): the layout suits the image", "[sched][slide]") {
  CHECK_THAT(reason(Slide{0, 2, Level::L1, Layout::blocked(2, 4)}, conv({8, 8}, {3, 3, 4})),
             Contains("slide (7): layout blk2:4 is invalid for the rank-2 image"));
}

TEST_CASE("slide (8): a VRF output stays whole registers", "[sched][slide]") {
  Spec s = conv({4, 4}, {3, 3, 4});
  s.operands[2] = vrf({2, 2, 4});
  CHECK_THAT(reason(Slide{0, 1, Level::L1, {}}, s), Contains("slide (8)"));
}

TEST_CASE("slide: Figure 3's window and its boundary", "[sched][slide]") {
  const ImplPtr n = applied(Slide{0, 32, Level::L1, {}}, conv({128, 128}, {5, 5, 32}));
  REQUIRE(n->children.size() == 2);
  CHECK(n->children[0]->spec.operands[0] == ts({36, 128}, Level::L1));
  CHECK(n->children[0]->spec.output().shape == Shape{32, 124, 32});
  CHECK(n->children[1]->spec.operands[0].shape == Shape{32, 128});
  const auto& loop = std::get<Loop>(n->kind);
  CHECK(loop.kind == LoopKind::slide);
  CHECK(loop.window == SlideWindow{0, Level::L1, Layout::row_major(), {}});
  // Columns of a rank-4 image.
  CHECK(body_shapes(Slide{2, 2, Level::L2, Layout::col_major()}, conv({2, 6, 7, 3}, {3, 4, 3, 2})) ==
        std::vector<Shape>{{2, 6, 5, 3}, {3, 4, 3, 2}, {2, 4, 2, 2}});
}
