// enumerate_actions on convolutions: the path brgemm convolutions take (tiles, slides, packing and padding while
// the output is in memory, then taps one at a time), accumulation in L1 over taps and channel blocks, rows in one
// slab per core.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "sched/enumerate.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::sched_test;

TEST_CASE("enumerate: the conv path (memory stage, then taps one at a time in registers)", "[sched][enumerate]") {
  const Target t = avx512();
  // The memory stage: the image is packed row-major only (to_matmul reads its channels as K), the filters also
  // blocked on output channels; the output moves into VRF only as one output row of one image.
  const auto mem = enumerate_actions(conv({1, 3, 10, 8}, {3, 3, 8, 32}), t);
  CHECK(contains(mem, Action{MoveTo{0, Level::L1, Layout::row_major(), 0}}));
  CHECK_FALSE(contains(mem, Action{MoveTo{0, Level::L1, Layout::blocked(3, 16), 0}}));
  CHECK(contains(mem, Action{MoveTo{1, Level::L1, Layout::blocked(3, 16), 0}}));
  std::size_t filter_to_l1 = 0;  // an alias (row-major, as given) and the panels, no row-major copy
  for (const MoveTo& m : only<MoveTo>(mem)) filter_to_l1 += m.operand == 1 && m.level == Level::L1;
  CHECK(filter_to_l1 == 2);
  // Output channels that fill whole vectors are tiled in whole vectors.
  for (const TileOut& t : only<TileOut>(mem)) CHECK(t.tile[3] % 16 == 0);
  CHECK(contains(mem, Action{TileOut{Shape{1, 1, 8, 16}, false}}));
  CHECK(contains(mem, Action{MoveTo{2, Level::VRF, Layout::row_major(), 16}}));
  const auto rows = enumerate_actions(conv({1, 4, 10, 8}, {3, 3, 8, 16}), t);  // two output rows
  CHECK_FALSE(contains(rows, Action{MoveTo{2, Level::VRF, Layout::row_major(), 16}}));
  // A pointwise conv cuts rows and columns, keeps its output channels whole, slides nothing and moves only its
  // filters (its matmul moves the rest).
  const auto pointwise = enumerate_actions(conv({1, 4, 10, 8}, {1, 1, 8, 32}), t);
  CHECK_FALSE(only<TileOut>(pointwise).empty());
  for (const TileOut& x : only<TileOut>(pointwise)) CHECK(x.tile[3] == 32);
  CHECK(only<Slide>(pointwise).empty());
  CHECK_FALSE(only<MoveTo>(pointwise).empty());
  for (const MoveTo& m : only<MoveTo>(pointwise)) CHECK(m.operand == 1);
  CHECK(contains(pointwise, Action{ToMatmul{}}));  // four dense rows: one matmul of M = 40
  // Filters beyond half of L2 (1.5 MiB; 1 MiB L2): also the widest block of whole vectors whose filters fit it,
  // serial or parallel, and one slab per core as a parallel loop only.
  std::set<std::pair<std::int64_t, bool>> channel_tiles;
  for (const TileOut& x : only<TileOut>(enumerate_actions(conv({1, 4, 10, 512}, {1, 1, 512, 768}), t))) {
    channel_tiles.insert({x.tile[3], x.parallel});
  }
  CHECK(channel_tiles == std::set<std::pair<std::int64_t, bool>>{{256, false}, {256, true}, {384, true},
                                                                  {768, false}, {768, true}});
  Spec serial_pointwise = conv({1, 4, 10, 512}, {1, 1, 512, 768});
  serial_pointwise.serial_only = true;
  for (const TileOut& x : only<TileOut>(enumerate_actions(serial_pointwise, t))) CHECK(x.tile[3] != 384);
  CHECK(contains(enumerate_actions(conv({1, 1, 10, 8}, {1, 1, 8, 32}), t), Action{ToMatmul{}}));
  Spec gaps = conv({1, 4, 10, 8}, {1, 1, 8, 32});
  gaps.operands[0].contiguous = false;  // rows with gaps between them: tile them first
  CHECK_FALSE(contains(enumerate_actions(gaps, t), Action{ToMatmul{}}));
  // A conv with an elementwise epilogue is tiled and packed like its conv.
  const auto fused = enumerate_actions(
      compose({Conv{}, Binary{BinaryOp::add}, Unary{}}, {{1, 6, 10, 8}, {3, 3, 8, 32}, {1, 1, 1, 32}}), t);
  for (const TileOut& x : only<TileOut>(fused)) {
    CHECK((x.tile[1] == 1 || x.tile[1] == 4));
    CHECK(x.tile[3] % 16 == 0);
  }
  CHECK_FALSE(contains(fused, Action{MoveTo{0, Level::L1, Layout::blocked(3, 16), 0}}));
  CHECK_FALSE(contains(fused, Action{Bufferize{1, Level::VRF, Layout::row_major()}}));  // 4x8x32: over 2 KiB
  // The register stage: no tiles, slides or moves; the filter rows first, then its columns, then to_matmul.
  auto in_vrf = [&](Shape img, Shape filters) {
    Spec s = conv(std::move(img), std::move(filters), true);
    s.operands[2].level = Level::VRF;
    s.operands[2].vector_size = 16;
    return enumerate_actions(s, t);
  };
  const auto taps = in_vrf({1, 3, 10, 8}, {3, 3, 8, 16});
  CHECK(only<Split>(taps) == std::vector<Split>{Split{1, 1}});
  CHECK(only<TileOut>(taps).empty());
  CHECK(only<Slide>(taps).empty());
  CHECK(only<MoveTo>(taps).empty());
  CHECK(only<Split>(in_vrf({1, 1, 10, 8}, {1, 3, 8, 16})) == std::vector<Split>{Split{1, 2}});
  const auto window = in_vrf({1, 1, 8, 8}, {1, 1, 8, 16});
  CHECK(only<Split>(window).empty());
  CHECK(contains(window, Action{ToMatmul{}}));
}

TEST_CASE("enumerate: a conv accumulates in L1 over its taps and channel blocks", "[sched][enumerate]") {
  const Target t = avx512();
  // Its output tile may alias into L1 however many rows it has (49 here, the L1 has 12 ways), and an unpadded
  // conv there accumulates: to_accum; an input of as many rows still does not alias.
  Spec mem = conv({1, 9, 9, 512}, {3, 3, 512, 64});
  mem.operands[2].contiguous = false;
  REQUIRE(mem.output().runs() == 49);
  const auto m = enumerate_actions(mem, t);
  CHECK(contains(m, Action{MoveTo{2, Level::L1, Layout::row_major(), 0}}));
  Spec l1 = mem;
  l1.operands[2].level = Level::L1;
  CHECK(contains(enumerate_actions(l1, t), Action{ToAccum{}}));
  CHECK_FALSE(contains(enumerate_actions(mem, t), Action{ToAccum{}}));  // in GL it does not
  Spec padded = l1;
  std::get<Conv>(padded.op).pad = {1, 1};
  padded.operands[0].shape = {1, 7, 7, 512};
  // A padded one too, and then its taps go by split_taps (no products with the padding), rows first.
  CHECK(contains(enumerate_actions(padded, t), Action{ToAccum{}}));
  Spec padded_acc = padded;
  std::get<Conv>(padded_acc.op).accumulate = true;
  const auto pa = enumerate_actions(padded_acc, t);
  CHECK(contains(pa, Action{SplitTaps{0}}));
  CHECK_FALSE(contains(pa, Action{SplitTaps{1}}));
  CHECK(only<Split>(pa).empty());
  Spec columns_left = padded_acc;
  std::get<Conv>(columns_left.op).pad = {0, 1};
  columns_left.operands[0].shape = {1, 9, 7, 512};
  CHECK(contains(enumerate_actions(columns_left, t), Action{SplitTaps{1}}));
  check_all_apply(padded_acc, t);
  check_all_apply(columns_left, t);
  Spec image_rows = matmul({49, 8}, {8, 16});
  image_rows.operands[0].contiguous = false;
  CHECK_FALSE(contains(enumerate_actions(image_rows, t), Action{MoveTo{0, Level::L1, Layout::row_major(), 0}}));
  // Accumulating in L1: the filter rows, then columns, then, one tap left, blocks of at least 16 channels.
  Spec acc = conv({1, 9, 9, 512}, {3, 3, 512, 64}, true);
  acc.operands[2].level = Level::L1;
  acc.operands[2].contiguous = false;
  CHECK(only<Split>(enumerate_actions(acc, t)) == std::vector<Split>{Split{1, 1}});
  Spec tap = conv({1, 7, 7, 512}, {1, 1, 512, 64}, true);
  tap.operands[2].level = Level::L1;
  tap.operands[2].contiguous = false;
  const std::vector<Split> blocks = only<Split>(enumerate_actions(tap, t));
  CHECK(blocks == std::vector<Split>{Split{16}, Split{32}, Split{64}, Split{128}, Split{256}});
  // A pointwise conv that does not accumulate is to_matmul's: no channel blocks, no to_accum at its level.
  Spec pointwise = conv({1, 7, 7, 512}, {1, 1, 512, 64});
  pointwise.operands[2].level = Level::L1;
  CHECK(only<Split>(enumerate_actions(pointwise, t)).empty());
  CHECK_FALSE(contains(enumerate_actions(pointwise, t), Action{ToAccum{}}));
  for (const Spec& s : {l1, acc, tap}) check_all_apply(s, t);
}

TEST_CASE("enumerate: a conv's rows in one slab per core, as a parallel loop only", "[sched][enumerate]") {
  const Spec s = conv({1, 30, 30, 128}, {3, 3, 128, 128});  // 28 output rows, 2 cores: slabs of 14
  const std::vector<TileOut> tiles = only<TileOut>(enumerate_actions(s, avx512()));
  auto has = [&](const Shape& tile, bool parallel) {
    return std::find(tiles.begin(), tiles.end(), TileOut{tile, parallel}) != tiles.end();
  };
  CHECK(has({1, 14, 28, 128}, true));
  CHECK_FALSE(has({1, 14, 28, 128}, false));
  CHECK(has({1, 1, 28, 128}, false));
  Spec serial = s;
  serial.serial_only = true;
  CHECK(std::none_of(tiles.begin(), tiles.end(), [](const TileOut& t) { return t.tile[1] == 14 && !t.parallel; }));
  for (const TileOut& t : only<TileOut>(enumerate_actions(serial, avx512()))) CHECK(t.tile[1] != 14);
  // 7 rows: slabs of 4 (4 and 3 on the two cores at once), not 3 (two slabs and a third trip of one row).
  const std::vector<TileOut> odd = only<TileOut>(enumerate_actions(conv({1, 9, 9, 64}, {3, 3, 64, 64}), avx512()));
  CHECK(std::find(odd.begin(), odd.end(), TileOut{{1, 4, 7, 64}, true}) != odd.end());
  CHECK(std::none_of(odd.begin(), odd.end(), [](const TileOut& t) { return t.tile[1] == 3; }));
}
