// enumerate_actions: the tile grid, deterministic order, every returned action applies (on random Specs of every
// kind and on the subproblems they create), register tiles such as 6x64 and boundary-leaving sizes are reachable,
// moves and aliases (enumerate_conv_test.cpp: a conv's path).
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <set>

#include "helpers.h"
#include "sched/enumerate.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;

TEST_CASE("the tile grid: 2^i, 3 and 6 for rows, dividing 3*2^i up to 24 or 48 and 7*2^i up to 28, the extent, chains",
          "[sched][enumerate]") {
  CHECK(tile_sizes(64, true) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 16, 32, 64});
  CHECK(tile_sizes(64, true, false) == std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64});
  // Rows (with the small threes) take 3*2^i up to kLargestRowThree, columns and reductions up to kLargestThree;
  // 96 and 192 would divide 384 too.
  CHECK(tile_sizes(96, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64});
  CHECK(tile_sizes(96, false, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64});
  CHECK(tile_sizes(384, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256});
  CHECK(tile_sizes(384, false, false) ==
        std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256});
  CHECK(tile_sizes(7, false) == std::vector<std::int64_t>{1, 3, 4, 6});  // irregular: 2 leaves a boundary
  CHECK(tile_sizes(12, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8});  // 3*2^2 is regular
  CHECK(tile_sizes(1, true) == std::vector<std::int64_t>{1});
  CHECK(tile_sizes(1, false).empty());
  CHECK(tile_sizes(1000, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 8, 512});
  CHECK(tile_sizes(488, false, false) == std::vector<std::int64_t>{1, 2, 4, 8, 256});
  CHECK(regular_extent(1024));
  CHECK(regular_extent(96));
  CHECK_FALSE(regular_extent(1000));
  CHECK(tile_sizes(2048, true).size() == 14);  // 1, 2, 3, 4, 6, 8, 16, ..., 1024, 2048
  // Rows take 7 * 2^i up to kLargestRowSeven where it divides the extent (a CNN's 56, 28, 14), columns never.
  CHECK(tile_sizes(56, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 7, 8, 14, 28, 32});
  CHECK(tile_sizes(56, false, false) == std::vector<std::int64_t>{1, 2, 4, 8, 32});
  CHECK(tile_sizes(14, true) == std::vector<std::int64_t>{1, 2, 3, 6, 7, 8, 14});
  CHECK(tile_sizes(112, false) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 7, 8, 14, 16, 28, 64});
  CHECK(tile_sizes(63, false) == std::vector<std::int64_t>{1, 3, 6, 7, 32});
}

TEST_CASE("enumerate: 6x64 register tiles and boundary-leaving sizes are reachable", "[sched][enumerate]") {
  const Spec s = matmul({64, 64}, {64, 64}, true);
  const auto actions = enumerate_actions(s, avx512());
  CHECK(contains(actions, Action{TileOut{{6, 64}, false}}));
  CHECK(contains(actions, Action{TileOut{{6, 64}, true}}));  // 0.5 MFLOP: enough to go parallel (from 0.26)
  CHECK_FALSE(contains(enumerate_actions(matmul({32, 32}, {32, 64}, true), avx512()),  // 0.13 MFLOP: too little
                       Action{TileOut{{6, 64}, true}}));
  CHECK(contains(enumerate_actions(matmul({256, 256}, {256, 256}, true), avx512()), Action{TileOut{{6, 64}, true}}));
  CHECK(contains(actions, Action{TileOut{{3, 16}, false}}));  // 3 does not divide 64
  CHECK_FALSE(contains(actions, Action{TileOut{{16, 6}, false}}));  // the innermost dimension: vector widths
  CHECK_FALSE(contains(actions, Action{TileOut{{48, 12}, false}}));  // 3*2^i above 6 that leave a boundary
  CHECK_FALSE(contains(actions, Action{Split{6}}));  // a reduction has no register rows
  CHECK_FALSE(contains(actions, Action{Split{24}}));
  CHECK_FALSE(contains(actions, Action{TileOut{{64, 64}, false}}));
  CHECK_FALSE(contains(actions, Action{Split{64}}));
  CHECK(contains(actions, Action{MoveTo{1, Level::L1, Layout::blocked(1, 16), 0}}));
  CHECK(contains(actions, Action{MoveTo{0, Level::L1, Layout::row_major(), 0}}));  // an alias
  // Per input: L1 as an alias, the rhs also packed blocked (row-major is the alias; the lhs is packed only when
  // strided, in its own placement); the output only as an alias. A 64x64 f32 tensor (16 KiB) exceeds the register
  // files, and fits half of L1, so L2 is not tried.
  CHECK_FALSE(contains(actions, Action{MoveTo{0, Level::L2, Layout::row_major(), 0}}));
  CHECK(only<MoveTo>(actions).size() == 1 + 2 + 1);
  CHECK(contains(enumerate_actions(matmul({128, 128}, {128, 128}, true), avx512()),
                 Action{MoveTo{0, Level::L2, Layout::row_major(), 0}}));
  CHECK(only<Select>(actions).empty());
}

TEST_CASE("enumerate: the innermost output dimension in whole vectors, outputs never into L2, batches one at a time",
          "[sched][enumerate]") {
  const Target t = avx512();
  // The innermost dimension: whole vectors (16), 1 or the extent; 63 leaves a partial register only as a whole.
  for (const TileOut& x : only<TileOut>(enumerate_actions(matmul({64, 64}, {64, 64}), t))) {
    CHECK((x.tile[1] % 16 == 0 || x.tile[1] == 1));
  }
  const auto odd = only<TileOut>(enumerate_actions(matmul({64, 64}, {64, 63}), t));
  CHECK(std::any_of(odd.begin(), odd.end(), [](const TileOut& x) { return x.tile[1] == 63; }));
  CHECK(std::any_of(odd.begin(), odd.end(), [](const TileOut& x) { return x.tile[1] == 32; }));
  for (const TileOut& x : odd) CHECK((x.tile[1] == 1 || x.tile[1] == 32 || x.tile[1] == 63));
  for (const TileOut& x : only<TileOut>(enumerate_actions(matmul({64, 64}, {64, 6}), t))) {
    CHECK((x.tile[1] == 1 || x.tile[1] == 6));  // narrower than a vector: 1 or whole
  }
  // An output does not move into L2 (an input that L1 cannot half hold does).
  const auto big = enumerate_actions(matmul({128, 128}, {128, 128}), t);
  CHECK(contains(big, Action{MoveTo{0, Level::L2, Layout::row_major(), 0}}));
  for (const MoveTo& m : only<MoveTo>(big)) CHECK_FALSE((m.operand == 2 && m.level == Level::L2));
  // A batched matmul: one batch element at a time, the rest whole, serial or parallel, nothing else.
  const auto batched = enumerate_actions(matmul({4, 64, 64}, {4, 64, 64}), t);
  CHECK(batched == std::vector<Action>{TileOut{{1, 64, 64}, false}, TileOut{{1, 64, 64}, true}});
  // One batch element is a plain matmul's search.
  const auto one = enumerate_actions(matmul({1, 64, 64}, {1, 64, 64}), t);
  CHECK(contains(one, Action{TileOut{{1, 6, 64}, false}}));
  CHECK(contains(one, Action{MoveTo{1, Level::L1, Layout::blocked(2, 16), 0}}));
  CHECK_FALSE(only<MoveTo>(one).empty());
}

TEST_CASE("enumerate: the documented order, deterministic", "[sched][enumerate]") {
  Spec s = conv({8, 8, 2}, {3, 3, 2, 4}, true);
  s.serial_only = true;
  const auto a = enumerate_actions(s, avx512());
  CHECK(a == enumerate_actions(s, avx512()));
  std::vector<std::size_t> kinds;
  for (const auto& x : a) kinds.push_back(x.index());
  CHECK(std::is_sorted(kinds.begin(), kinds.end()));
  CHECK(only<TileOut>(a).front().tile == Shape{1, 1, 1});
  for (const auto& t : only<TileOut>(a)) CHECK_FALSE(t.parallel);
  CHECK(only<Slide>(a).size() == 2 * 4 * 3);  // dims 0, 1; sizes 1, 2, 3, 4 below 6; GL, L2, L1
  // A conv whose output is in memory neither splits nor accumulates: both happen in registers.
  CHECK(only<Split>(a).empty());
  CHECK(only<ToAccum>(a).empty());
}

TEST_CASE("enumerate: a matmul's rows in one slab per core, as a parallel loop only", "[sched][enumerate]") {
  // 82 rows on 2 cores: slabs of 41, which the grid (powers of two, 3 and 6) lacks: its 64 gives one core 64 rows
  // and the other 18.
  const Spec s = matmul({82, 99}, {99, 63});
  auto has = [](const Spec& spec, const Shape& tile, bool parallel) {
    const std::vector<TileOut> tiles = only<TileOut>(enumerate_actions(spec, avx512()));
    return std::find(tiles.begin(), tiles.end(), TileOut{tile, parallel}) != tiles.end();
  };
  CHECK(has(s, {41, 63}, true));
  CHECK_FALSE(has(s, {41, 63}, false));
  CHECK(has(s, {64, 63}, true));
  CHECK(has(s, {64, 63}, false));
  Spec serial = s;
  serial.serial_only = true;
  for (const TileOut& t : only<TileOut>(enumerate_actions(serial, avx512()))) CHECK(t.tile[0] != 41);
  // A grid tile that halves the rows is the slab already.
  CHECK(has(matmul({128, 64}, {64, 63}), {64, 63}, true));
  // Columns (more than rows) in one slab per core of whole registers, as a parallel loop only: 200 columns as 112
  // and 88; 768 (which the grid cuts into 512 and 256) in two of 384, each core its half of B.
  for (const TileOut& t : only<TileOut>(enumerate_actions(matmul({64, 64}, {64, 200}), avx512()))) {
    CHECK(t.tile[1] != 100);
    CHECK(t.tile[1] != 96);
    CHECK((t.tile[1] != 112 || t.parallel));
  }
  CHECK(has(matmul({64, 64}, {64, 200}), {64, 112}, true));
  CHECK(has(matmul({128, 64}, {64, 768}), {128, 384}, true));
  CHECK_FALSE(has(matmul({128, 64}, {64, 768}), {128, 384}, false));
  // Only where there are more columns than rows: 200 rows of 200 columns split by rows alone.
  CHECK_FALSE(has(matmul({200, 64}, {64, 200}), {200, 96}, true));
  // An odd extent in slabs rounded up: 99 rows as 50 and 49 (slabs of 49 would leave a third trip of one row).
  CHECK(has(matmul({99, 256}, {256, 64}), {50, 64}, true));
  CHECK_FALSE(has(matmul({99, 256}, {256, 64}), {50, 64}, false));
  CHECK_FALSE(has(matmul({99, 256}, {256, 64}), {49, 64}, true));
  check_all_apply(s, avx512());
  // A matmul with its epilogue too: without the slab, 82x99x63 with bias and relu took 2-row parallel tiles (on 2
  // threads 4.46 us against the matmul's 3.57; in slabs of 41, 3.5).
  const Spec fused = parse_spec("compose[matmul, add, relu] 82x99 99x63 1x63 f32", avx512());
  CHECK(has(fused, {41, 63}, true));
  CHECK_FALSE(has(fused, {41, 63}, false));
  check_all_apply(fused, avx512());
}

TEST_CASE("enumerate: every output matrix's rows and a vector output's registers in one slab per core",
          "[sched][enumerate]") {
  auto has = [](const std::string& text, const Shape& tile, bool parallel) {
    const std::vector<TileOut> tiles = only<TileOut>(enumerate_actions(parse_spec(text, avx512()), avx512()));
    return std::find(tiles.begin(), tiles.end(), TileOut{tile, parallel}) != tiles.end();
  };
  // A reduction over rows into 1100 columns: slabs of 560 and 540 (whole registers).
  CHECK(has("reducesum[axis=0] 1000x1100 f32", {560}, true));
  CHECK_FALSE(has("reducesum[axis=0] 1000x1100 f32", {560}, false));
  CHECK_FALSE(has("reducesum[axis=0] 1000x1100 f32 serial", {560}, true));
  // A reduction along rows into 1100 row sums, and an elementwise op's rows.
  CHECK(has("reducesum[axis=1] 1100x999 f32", {560}, true));
  CHECK(has("max 333x250 f32", {167, 250}, true));
  CHECK_FALSE(has("max 333x250 f32", {167, 250}, false));
  // Too little work for a parallel loop: no slab.
  CHECK_FALSE(has("reducesum[axis=0] 64x99 f32", {48}, true));
  check_all_apply(parse_spec("reducesum[axis=0] 1000x1100 f32", avx512()), avx512());
}

TEST_CASE("enumerate: VRF and RF moves, kernels, to_accum, bufferize", "[sched][enumerate]") {
  const auto z = enumerate_actions(zero({1, 16}), avx512());
  CHECK(contains(z, Action{MoveTo{0, Level::VRF, Layout::row_major(), 16}}));
  CHECK_FALSE(contains(z, Action{MoveTo{0, Level::RF, Layout::row_major(), 0}}));  // RF takes single elements
  CHECK(contains(enumerate_actions(zero({1, 1}), avx512()), Action{MoveTo{0, Level::RF, Layout::row_major(), 0}}));
  const auto r = enumerate_actions(zero({1, 17}), avx512());
  CHECK_FALSE(contains(r, Action{MoveTo{0, Level::RF, Layout::row_major(), 0}}));
  CHECK_FALSE(contains(r, Action{MoveTo{0, Level::VRF, Layout::row_major(), 16}}));
  const Spec v{Zero{}, {ts({1, 16}, Level::VRF, Layout::row_major(), 16)}, false};
  CHECK(only<Select>(enumerate_actions(v, avx512())).size() == 1);
  CHECK(contains(enumerate_actions(matmul({4, 4}, {4, 4}), avx512()), Action{ToAccum{}}));
  const Spec c = compose({Conv{}, ReduceSum{2, false}, Conv{}}, {{10, 10}, {5, 5, 6}, {5, 5, 6}});
  // Cuts 1 and 2 at GL and L1, and cut 2's 6x6 intermediate (rows of 6: a partial register) in VRF panels.
  CHECK(only<Bufferize>(enumerate_actions(c, avx512())).size() == 5);
  CHECK(contains(enumerate_actions(c, avx512()), Action{Bufferize{2, Level::VRF, Layout::blocked(1, 16)}}));
}

TEST_CASE("enumerate: a narrow rhs transposed into L1 from where it is or from its alias there", "[sched][enumerate]") {
  const Action col{MoveTo{1, Level::L1, Layout::col_major(), 0}};
  // 160x3: three columns of ten registers each, which dot_fma reads as dense runs.
  CHECK(contains(enumerate_actions(matmul({17, 160}, {160, 3}), avx512()), col));
  Spec in_l1 = matmul({17, 160}, {160, 3});
  in_l1.operands[1].level = Level::L1;
  CHECK(contains(enumerate_actions(in_l1, avx512()), col));
  // A batch of one is a matrix; a rhs of 16 columns fills registers; K = 100 ends in a partial register (dot_fma
  // masks it), K = 8 is less than one.
  CHECK(contains(enumerate_actions(matmul({1, 17, 160}, {1, 160, 3}), avx512()), col));
  CHECK_FALSE(contains(enumerate_actions(matmul({2, 17, 160}, {2, 160, 3}), avx512()), col));
  CHECK_FALSE(contains(enumerate_actions(matmul({17, 160}, {160, 16}), avx512()), col));
  CHECK(contains(enumerate_actions(matmul({17, 100}, {100, 3}), avx512()), col));
  CHECK_FALSE(contains(enumerate_actions(matmul({17, 8}, {8, 3}), avx512()), col));
  // Only where two rows of dots fit the registers with their runs: 10 columns of AVX-512's 32 registers, 4 of
  // AVX2's 16.
  CHECK(contains(enumerate_actions(matmul({17, 64}, {64, 10}), avx512()), col));
  CHECK_FALSE(contains(enumerate_actions(matmul({17, 64}, {64, 11}), avx512()), col));
  const Target avx2 = named_target("avx2");
  CHECK(contains(enumerate_actions(matmul({17, 64}, {64, 4}), avx2), col));
  CHECK_FALSE(contains(enumerate_actions(matmul({17, 64}, {64, 5}), avx2), col));
  // Within L1 only the transposing copy: no row-major or panel copy of an operand already there.
  for (const MoveTo& m : only<MoveTo>(enumerate_actions(in_l1, avx512()))) {
    if (m.operand == 1 && m.level == Level::L1) CHECK(m.layout == Layout::col_major());
  }
  // Its copy goes one element at a time through RF (loops the compilers vectorize), never a one-lane register.
  const Spec one = move_spec(ts({1, 1}, Level::L1), ts({1, 1}, Level::L1, Layout::col_major()));
  const auto m = enumerate_actions(one, avx512());
  CHECK(contains(m, Action{MoveTo{0, Level::RF, Layout::row_major(), 0}}));
  CHECK(only<MoveTo>(m).size() == 2);  // its input or its output into RF
  for (const MoveTo& t : only<MoveTo>(m)) CHECK(t.level == Level::RF);
}

TEST_CASE("enumerate: an alias holds no more strided rows or panels than the ways, L2 one less", "[sched][enumerate]") {
  // The default targets' L1 is 12-way. A strided lhs of 13 rows of 8: no L1 alias but a packing copy into L1;
  // 12 rows alias into L1; contiguous operands alias whatever their rows.
  Spec s = matmul({13, 8}, {8, 16});
  s.operands[0].contiguous = false;
  REQUIRE(s.operands[0].runs() == 13);
  const auto a = enumerate_actions(s, avx512());
  CHECK_FALSE(contains(a, Action{MoveTo{0, Level::L1, Layout::row_major(), 0}}));
  CHECK(contains(a, Action{MoveTo{0, Level::L1, Layout::row_major(), 0, true}}));
  CHECK(apply(MoveTo{0, Level::L1, Layout::row_major(), 0}, s, avx512()).index() == 0);  // still legal by hand
  Spec twelve = matmul({12, 8}, {8, 16});
  twelve.operands[0].contiguous = false;
  CHECK(contains(enumerate_actions(twelve, avx512()), Action{MoveTo{0, Level::L1, Layout::row_major(), 0}}));
  s.operands[0].contiguous = true;
  CHECK(contains(enumerate_actions(s, avx512()), Action{MoveTo{0, Level::L1, Layout::row_major(), 0}}));
  // Rows of a blocked layout are cut at the block: 4 rows of 32 in blk1:16 are 8 runs.
  TensorSpec b = ts({4, 32}, Level::GL, Layout::blocked(1, 16));
  b.contiguous = false;
  CHECK(b.runs() == 8);
  // But rows of one line each follow one another in their panel: a tile of a rhs in 16-column panels is one stream
  // per panel it spans. 64 rows of 32 columns (two panels, 128 runs) alias into L1; 64 rows of 16 * 13 columns
  // (13 panels, more than the 12 ways) do not, and neither do the same rows row-major (64 runs).
  Spec panels = matmul({6, 64}, {64, 32});
  panels.operands[1].layout = Layout::blocked(1, 16);
  panels.operands[1].contiguous = false;
  REQUIRE(panels.operands[1].runs() == 128);
  const Action alias{MoveTo{1, Level::L1, Layout::blocked(1, 16), 0}};
  CHECK(contains(enumerate_actions(panels, avx512()), alias));
  Spec wide = matmul({6, 64}, {64, 16 * 13});
  wide.operands[1].layout = Layout::blocked(1, 16);
  wide.operands[1].contiguous = false;
  CHECK_FALSE(contains(enumerate_actions(wide, avx512()), alias));
  Spec rows = matmul({6, 64}, {64, 32});
  rows.operands[1].contiguous = false;
  CHECK_FALSE(contains(enumerate_actions(rows, avx512()), Action{MoveTo{1, Level::L1, Layout::row_major(), 0}}));
  // L2 (16-way) keeps a way for the others: 15 panels of 1024 rows (a set's line each) alias into it, 16 do not.
  const Action l2_alias{MoveTo{1, Level::L2, Layout::blocked(1, 16), 0}};
  for (const std::int64_t n : {15, 16}) {
    Spec tall = matmul({6, 1024}, {1024, 16 * n});
    tall.operands[1].layout = Layout::blocked(1, 16);
    tall.operands[1].contiguous = false;
    INFO(n << " panels");
    CHECK(contains(enumerate_actions(tall, avx512()), l2_alias) == (n < 16));
  }
  // Panels of 64 columns (256-byte rows) follow one another too where the tile holds whole panels: 512 rows of 128
  // columns are two runs of 2048 lines (two lines in each of L2's 1024 sets), and alias into L2; a tile of 32 of a
  // panel's 64 columns is 512 runs of two lines, which do not.
  const Action wide_alias{MoveTo{1, Level::L2, Layout::blocked(1, 64), 0}};
  for (const std::int64_t n : {128, 32}) {
    Spec block = matmul({6, 512}, {512, n});
    block.operands[1].layout = Layout::blocked(1, 64);
    block.operands[1].contiguous = false;
    INFO(n << " columns of 64-column panels");
    CHECK(contains(enumerate_actions(block, avx512()), wide_alias) == (n == 128));
  }
}

TEST_CASE("enumerate: an operand moves into L2 past 16 KiB, whatever the target's L1 holds", "[sched][enumerate]") {
  // A rule on the target's L1 offered fewer actions on a larger cache (synth_property_test: a 2 KiB L1 staged
  // filters in L2 that a 48 KiB one could not). The rhs of 64x64 (16 KiB) stays out of L2 on both targets; of
  // 64x80 (20 KiB) goes there on both.
  const Target small = make_target(Isa::avx512, 2048, 1024 * 1024);
  for (const std::int64_t n : {64, 80}) {
    const Spec s = matmul({8, 64}, {64, n});
    const Action alias{MoveTo{1, Level::L2, Layout::row_major(), 0}};
    INFO("rhs 64x" << n);
    CHECK(contains(enumerate_actions(s, avx512()), alias) == (n == 80));
    CHECK(contains(enumerate_actions(s, small), alias) == (n == 80));
  }
  CHECK(kL2StagingMin == 16 * 1024);
}

TEST_CASE("enumerate: every returned action applies, on random Specs and their subproblems", "[sched][enumerate]") {
  const std::uint64_t seed = test_seed(4242);
  std::cout << "enumerate seed " << seed << " (KRIEK_SEED overrides)\n";
  std::mt19937_64 rng(seed);
  std::size_t specs = 0;
  for (int round = 0; round < 12; ++round) {
    for (int kind = 0; kind < kRandomKinds; ++kind) {
      const Spec s = random_spec(rng, kind);
      INFO("spec " << text(s));
      auto children = check_all_apply(s, avx512());
      check_all_apply(s, scalar_target());
      ++specs;
      // A few subproblems, which reach registers, windows and pipelines.
      for (std::size_t i = 0; i < children.size(); i += 1 + children.size() / 8) {
        INFO("child " << text(children[i]));
        check_all_apply(children[i], avx512());
        ++specs;
      }
    }
  }
  CHECK(specs > 200);
}

TEST_CASE("enumerate is fast on large Specs", "[sched][enumerate]") {
  const Spec mm = matmul({1024, 1024}, {1024, 1024}, true);
  const Spec cv = conv({1, 130, 130, 64}, {3, 3, 64, 128}, true);
  const auto start = std::chrono::steady_clock::now();
  std::size_t n = 0;
  for (int i = 0; i < 20; ++i) n += enumerate_actions(mm, avx512()).size() + enumerate_actions(cv, avx512()).size();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "enumerate: " << n / 20 << " actions per round in " << ms / 20 << " ms\n";
  CHECK(ms / 20 < 50);
}
