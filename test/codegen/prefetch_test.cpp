// Prefetching aliases (MoveOp::prefetch): the lowering's plan of the next tile's lines (nested progressions, the
// loop that moves the tile, the spacing over the body's FMA kernels) and random schedules with them through both
// backends, against the reference.
#include <catch2/catch.hpp>

#include <random>

#include "codegen/emit_c.h"
#include "codegen/prefetch.h"
#include "codegen/run_checks.h"
#include "impl/printer.h"
#include "sched/schedule.h"
#include "spec/text.h"
#include "support/random_spec.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;
using namespace kriek::test;
using Catch::Matchers::Contains;

TEST_CASE("a prefetch plan: the next tile's lines as nested progressions, spread over the body's FMA calls",
          "[codegen][prefetch]") {
  // A 1x1x128x64 block of 3x3x512x512 filters in panels of 16 output channels (blk3:16), at channel block i (128
  // channels) and tap (j, k): four panels of 128 lines each, 73728 elements apart.
  const CView filters = whole(Storage::memory, "f", {3, 3, 512, 512}, Layout::blocked(3, 16));
  const Affine i = Affine::variable("i"), j = Affine::variable("j");
  const CView block = filters.sub({j, Affine(1), i * 128, Affine(64)}, {1, 1, 128, 64});
  const auto plan = prefetch_plan(block, {j, i}, 1792);
  REQUIRE(plan);
  CHECK(plan->lines == 512);
  REQUIRE(plan->dims.size() == 2);
  CHECK((plan->dims[0].extent == 4 && plan->dims[0].inner == 128 && plan->dims[0].stride == 73728));
  CHECK((plan->dims[1].extent == 128 && plan->dims[1].inner == 1 && plan->dims[1].stride == 16));
  CHECK(plan->spacing == 2);  // 1792 calls for 512 lines: every second one
  CHECK(plan->per_step == 1);
  // The next tile is the next channel block (i + 1): the block one 128-row step on in the same panels.
  CHECK(plan->offset == *affine_offset(block, zeros(4)) + Affine(128 * 16));
  CHECK(prefetch_line_offset(*plan, 0) == 0);
  CHECK(prefetch_line_offset(*plan, 129) == 73728 + 16);
  // Fewer calls than lines: several lines a call.
  CHECK(prefetch_plan(block, {j, i}, 100)->per_step == 6);
  // Moved only by the outer variable: the next tap's block.
  const CView tap = filters.sub({j, Affine(1), Affine(0), Affine(0)}, {1, 1, 128, 64});
  CHECK(prefetch_plan(tap, {j, i}, 512)->offset == *affine_offset(tap, zeros(4)) + Affine(3 * 8192));
  // Nothing moves it, or nothing carries the prefetches: no plan.
  CHECK_FALSE(prefetch_plan(block, {Affine::variable("k")}, 1792));
  CHECK_FALSE(prefetch_plan(block, {j, i}, 0));
  // A row-major 8x40 tile of a 100x100 matrix, moved by its row block: 8 rows of 3 lines, each row's from its start.
  const CView m = whole(Storage::memory, "a", {100, 100}, Layout::row_major());
  const auto rows = prefetch_plan(m.sub({i * 8, Affine(0)}, {8, 40}), {i}, 64);
  REQUIRE(rows);
  CHECK(rows->lines == 24);
  CHECK(prefetch_line_offset(*rows, 4) == 100 + 16);
}

TEST_CASE("prefetching aliases through both backends: random matmuls and convs against the reference",
          "[codegen][prefetch]") {
  // Each Spec is cut by a loop that moves its rhs (K blocks of a matmul, channel blocks or taps of a conv, or
  // output column blocks), the rhs tile aliased in L1 with prefetch, the DP completing the body (bcast_fma or
  // dot_fma kernels carry the prefetches); some tiles are inside a parallel loop, some hold one.
  const std::uint64_t seed = kriek::testing::test_seed(20261128);
  INFO("seed " << seed << " (set KRIEK_SEED to replay)");
  std::mt19937_64 rng(seed);
  const Target target = named_target(host_runs(named_target("avx512")) ? "avx512" : "avx2");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  auto dp = [&](const Spec& s) { return *synth.best(s, capacities(target)); };
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<ImplPtr> impls;
  bool emitted = false;
  for (int n = 0; n < 8; ++n) {
    Schedule s = schedule(parse_spec("matmul 1x1x1 f32", target), target);
    if (n % 2 == 0) {
      const std::int64_t m = pick(1, 40), k = pick(2, 96), c = pick(1, 70);
      const std::string text = "matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(c) +
                               " f32" + (n % 4 == 0 ? " serial" : "");
      INFO("spec " << text);
      s = schedule(parse_spec(text, target), target);
      if (n % 4 == 2 && m > 1) s = s.tile_out({(m + 1) / 2, c}, true);
      s = s.split(pick(1, k - 1)).prefetch_input(1, Level::L1);
    } else {
      const std::int64_t ch = pick(2, 40), f = 16 * pick(1, 3), h = pick(3, 9);
      const std::string text = "conv[pad=1] 1x" + std::to_string(h) + "x" + std::to_string(h) + "x" +
                               std::to_string(ch) + " 3x3x" + std::to_string(ch) + "x" + std::to_string(f) +
                               " f32 serial";
      INFO("spec " << text);
      s = schedule(parse_spec(text, target), target).apply(PadImage{Level::L2, Layout::row_major()});
      s = s.focus(s.holes().back().name).tile_out(f > 16 ? Shape{1, h, h, 16} : Shape{1, 1, h, f});
      s = n % 3 == 0 ? s.split(1, 1).prefetch_input(1, Level::L1) : s.split(pick(1, ch - 1)).prefetch_input(1, Level::L1);
    }
    const ImplPtr impl = s.complete(dp).impl();
    REQUIRE_THAT(print_impl(impl), Contains("move[L1 alias prefetch]"));
    emitted |= emit_c(impl, target).code.find("__builtin_prefetch(") != std::string::npos;
    impls.push_back(impl);
  }
  CHECK(emitted);
  check_all_run(impls, target);
}
