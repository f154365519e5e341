// The sparse DP (synth/sparse.h): its grid, the anchor of an off-grid Spec, how the anchor's tilings carry over,
// and, on random Specs with a printed seed, that a sparse search's Impls compute the reference and rebuild to their
// stored costs and peaks, and that a search below the grid's minimum work is exactly the exhaustive one.
#include <catch2/catch.hpp>

#include <iostream>

#include "impl/printer.h"
#include "spec/text.h"
#include "support/interpret_check.h"
#include "support/random_spec.h"
#include "support/tensors.h"
#include "synth/sparse.h"
#include "synth/synthesizer.h"

using namespace kriek;
using kriek::testing::avx512;
using kriek::testing::random_spec;

TEST_CASE("the sparse grid holds every extent up to 16 and the powers of 4 above", "[synth][sparse]") {
  const SparseGrid grid;
  for (std::int64_t e : {1, 5, 16, 64, 256, 1024, 4096}) CHECK(grid.on_grid(e));
  for (std::int64_t e : {17, 32, 63, 65, 128, 255, 512, 1000, 2048}) CHECK_FALSE(grid.on_grid(e));
  CHECK(grid.snap(5) == 5);
  CHECK(grid.snap(20) == 16);
  CHECK(grid.snap(63) == 16);
  CHECK(grid.snap(100) == 64);
  CHECK(grid.snap(255) == 64);
  CHECK(grid.snap(256) == 256);
  CHECK(grid.snap(512) == 256);
  CHECK(grid.snap(1000) == 256);
  CHECK(grid.snap(2048) == 1024);
  const SparseGrid fine{.dense_below = 4, .min_flops = 0};
  CHECK(fine.snap(7) == 4);
  CHECK(fine.snap(17) == 16);
  CHECK(fine.snap(70) == 64);
  CHECK(fine.on_grid(3));
  CHECK_FALSE(fine.on_grid(8));
}

TEST_CASE("the anchor is the Spec cut to the grid by its output and its reduction, else moved into L1",
          "[synth][sparse]") {
  const Target& t = avx512();
  const SparseGrid grid;
  // A plain matmul has no split: its output is cut, K stays.
  const auto plain = sparse_anchor(parse_spec("matmul 300x700x500 f32", t), grid, t);
  REQUIRE(plain);
  CHECK(plain->output().shape == Shape{256, 256});
  CHECK(plain->input(0).shape == Shape{256, 700});
  // An accumulating one is cut along K too.
  const auto acc = sparse_anchor(parse_spec("matmul[acc] 300x700x500 f32", t), grid, t);
  REQUIRE(acc);
  CHECK(acc->output().shape == Shape{256, 256});
  CHECK(acc->input(0).shape == Shape{256, 256});
  // Only K off the grid.
  const auto k_only = sparse_anchor(parse_spec("matmul[acc] 64x700x16 f32", t), grid, t);
  REQUIRE(k_only);
  CHECK(k_only->input(1).shape == Shape{256, 16});
  // On the grid with operands in GL or L2: the same Spec with them in L1 (its level anchor); all in L1 or faster:
  // none; none either without level anchors.
  const Spec on_grid = parse_spec("matmul 64x256x1024 f32", t);
  const auto level = sparse_anchor(on_grid, grid, t);
  REQUIRE(level);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(level->operands[i].level == Level::L1);
    CHECK(level->operands[i].shape == on_grid.operands[i].shape);
    CHECK(level->operands[i].layout == on_grid.operands[i].layout);
  }
  CHECK(level->op == on_grid.op);
  CHECK_FALSE(sparse_anchor(*level, grid, t));
  Spec mixed = on_grid;
  mixed.operands[0].level = Level::L2;
  mixed.operands[2].level = Level::VRF;
  mixed.operands[2].vector_size = 16;
  const auto mixed_anchor = sparse_anchor(mixed, grid, t);
  REQUIRE(mixed_anchor);
  CHECK(mixed_anchor->operands[0].level == Level::L1);
  CHECK(mixed_anchor->operands[1].level == Level::L1);
  CHECK(mixed_anchor->operands[2].level == Level::VRF);  // registers stay
  CHECK_FALSE(sparse_anchor(on_grid, SparseGrid{.level_anchors = false}, t));
  // A padded conv cannot be tiled (pad_image first): off the grid it has no extent anchor, only its level anchor.
  const Spec padded = parse_spec("conv[pad=1] 1x100x100x8 3x3x8x8 f32", t);
  const auto conv_anchor = sparse_anchor(padded, grid, t);
  REQUIRE(conv_anchor);
  CHECK(conv_anchor->output().shape == padded.output().shape);
  CHECK(conv_anchor->output().level == Level::L1);
  CHECK_FALSE(sparse_anchor(padded, SparseGrid{.level_anchors = false}, t));
}

TEST_CASE("sparse actions: the anchor's tilings as they are and whole then the cuts to the anchor",
          "[synth][sparse]") {
  const Target& t = avx512();
  const Spec spec = parse_spec("matmul[acc] 300x700x500 f32", t);
  const auto anchor = sparse_anchor(spec, SparseGrid{}, t);
  REQUIRE(anchor);
  // The anchor's frontier: its decisions are all sparse_actions reads.
  auto frontier = [](std::vector<Action> actions) {
    Frontier f;
    for (Action& a : actions) f.entries.push_back(FrontierEntry{0, {}, std::move(a), {}, 0});
    return f;
  };
  const Frontier f = frontier({TileOut{Shape{256, 32}, true}, TileOut{Shape{6, 256}, false}, Split{64},
                               Split{64} /* once */, MoveTo{0, Level::L2, Layout::row_major(), 0} /* not a tiling */});
  const std::vector<Action> actions = sparse_actions(f, *anchor, spec, SparseGrid{}, t);
  REQUIRE(actions.size() > 5);
  CHECK(actions[0] == Action{TileOut{Shape{256, 32}, true}});
  CHECK(actions[1] == Action{TileOut{Shape{300, 32}, true}});
  CHECK(actions[2] == Action{TileOut{Shape{6, 256}, false}});
  CHECK(actions[3] == Action{TileOut{Shape{6, 500}, false}});
  CHECK(actions[4] == Action{Split{64}});
  // Then the cuts that make the anchor (256x256 of output, K 256 of 700).
  REQUIRE(actions.size() > 8);
  CHECK(actions[5] == Action{TileOut{Shape{256, 256}, false}});
  CHECK(actions[6] == Action{TileOut{Shape{256, 256}, true}});
  CHECK(actions[7] == Action{Split{256}});
  // Then the Spec's own actions that make no large extent: its moves, to_accum, kernels and tiles of extents up
  // to 16 or whole (rows of register tiles among them); no split.
  bool register_tile = false;
  for (std::size_t i = 8; i < actions.size(); ++i) {
    INFO(action_text(actions[i], spec));
    CHECK_FALSE(std::holds_alternative<Split>(actions[i]));
    if (const auto* t = std::get_if<TileOut>(&actions[i])) {
      for (std::size_t d = 0; d < 2; ++d) CHECK((t->tile[d] <= 16 || t->tile[d] == spec.output().shape[d]));
      register_tile |= t->tile[0] <= 16;
    }
  }
  CHECK(register_tile);
  // No tiling of the anchor applies (a tile larger than the Spec): the cuts to the anchor and the Spec's own
  // actions still do.
  const std::vector<Action> cut = sparse_actions(frontier({TileOut{Shape{400, 32}, false}}), *anchor, spec,
                                                 SparseGrid{}, t);
  REQUIRE(cut.size() > 3);
  CHECK(cut[0] == Action{TileOut{Shape{256, 256}, false}});
  CHECK(cut[1] == Action{TileOut{Shape{256, 256}, true}});
  CHECK(cut[2] == Action{Split{256}});
  CHECK(std::ranges::none_of(cut, [](const Action& a) { return a == Action{TileOut{Shape{400, 32}, false}}; }));
}

TEST_CASE("sparse actions of a level anchor: its tilings, and the Spec's own tilings to extents on the grid",
          "[synth][sparse]") {
  const Target& t = avx512();
  const SparseGrid grid;
  const Spec spec = parse_spec("matmul[acc] 64x256x256 f32", t);  // on the grid, in GL
  const auto anchor = sparse_anchor(spec, grid, t);
  REQUIRE(anchor);
  REQUIRE(anchor->input(1).level == Level::L1);
  Frontier f;
  f.entries.push_back(FrontierEntry{0, {}, TileOut{Shape{6, 64}, false}, {}, 0});
  const std::vector<Action> actions = sparse_actions(f, *anchor, spec, grid, t);
  auto has = [&](const Action& a) { return std::ranges::find(actions, a) != actions.end(); };
  CHECK(actions.front() == Action{TileOut{Shape{6, 64}, false}});  // the anchor's, first
  // Blocks for the caches the anchor in L1 had no use for: splits and tiles to grid extents, not to others.
  CHECK(has(Split{64}));
  CHECK(has(Split{16}));
  CHECK_FALSE(has(Split{128}));
  CHECK(has(TileOut{Shape{64, 64}, false}));
  CHECK_FALSE(has(TileOut{Shape{64, 128}, false}));
  // And its moves (B, 256 KiB, into L2; only tiles of it fit L1).
  CHECK(has(MoveTo{1, Level::L2, Layout::row_major(), 0}));
}

TEST_CASE("sparse searches find Impls that compute the reference at their stored costs", "[synth][sparse][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(20261125);
  std::cout << "sparse property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  const Target& t = avx512();
  // A grid fine enough that small random Specs have off-grid extents (everything above 4 but 16 and 64).
  Synthesizer sparse(t, CostModel::for_target(t), SynthOptions{.threads = 2, .sparse = SparseGrid{4, 0}});
  Synthesizer exhaustive(t, CostModel::for_target(t), SynthOptions{.threads = 2});
  for (int round = 0; round < 2; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      const Spec spec = random_spec(rng, kind, 12);
      INFO("spec " << spec);
      const Frontier f = sparse.solve(spec);
      const Frontier e = exhaustive.solve(spec);
      // Whatever fits exhaustively fits sparsely: the root tries every action, and a Spec that none of its anchor's
      // tilings fits is solved exhaustively.
      REQUIRE(f.empty() == e.empty());
      for (std::size_t i = 0; i < f.entries.size(); ++i) {
        const ImplPtr impl = sparse.reconstruct(spec, i);
        REQUIRE(is_complete(impl));
        const ImplCost c = evaluate(impl, t, sparse.model());
        CHECK(c.cost == f.entries[i].cost);
        CHECK(c.peak == f.entries[i].peak);
        CHECK(kriek::testing::interpret_check(impl, rng()).ok());
      }
    }
  }
  CHECK(sparse.stats().specs_transplanted.load() > 0);
}

TEST_CASE("a sparse search below the grid's minimum work is the exhaustive one", "[synth][sparse]") {
  const Target& t = avx512();
  Synthesizer sparse(t, CostModel::for_target(t), SynthOptions{.threads = 2, .sparse = SparseGrid{4, 1e12}});
  Synthesizer exhaustive(t, CostModel::for_target(t), SynthOptions{.threads = 2});
  const Spec spec = parse_spec("matmul 24x40x33 f32", t);
  CHECK(sparse.solve(spec).entries == exhaustive.solve(spec).entries);
  CHECK(sparse.stats().specs_solved.load() == exhaustive.stats().specs_solved.load());
  CHECK(sparse.stats().specs_transplanted.load() == 0);
}
