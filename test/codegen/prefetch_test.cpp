// Prefetches of tiles streamed from main memory: the lowering's plan of the next tile's lines (nested progressions,
// the loop that moves the tile, the spacing over the body's FMA kernels), which moves get them (aliases into L1 or
// L2 of a matmul's rhs or a conv's filters in GL larger than L2, in a loop that moves them, not across a parallel
// loop), and random schedules with
// them through both backends, against the reference.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
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
  CHECK(plan->fetching_steps() == 1024);  // the last line fetched on count 1022
  // The next tile is the next channel block (i + 1): the block one 128-row step on in the same panels.
  CHECK(plan->offset == *affine_offset(block, zeros(4)) + Affine(128 * 16));
  CHECK(prefetch_line_offset(*plan, 0) == 0);
  CHECK(prefetch_line_offset(*plan, 129) == 73728 + 16);
  // Fewer calls than lines: several lines a call.
  const auto few_calls = prefetch_plan(block, {j, i}, 100);
  REQUIRE(few_calls);
  CHECK(few_calls->per_step == 6);
  CHECK(few_calls->fetching_steps() == 86);  // 86 calls of 6 lines cover 512
  // Moved only by the outer variable: the next tap's block.
  const CView tap = filters.sub({j, Affine(1), Affine(0), Affine(0)}, {1, 1, 128, 64});
  const auto next_tap = prefetch_plan(tap, {j, i}, 512);
  REQUIRE(next_tap);
  CHECK(next_tap->offset == *affine_offset(tap, zeros(4)) + Affine(3 * 8192));
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

namespace {

/// True when the emitted C prefetches.
bool prefetches(const ImplPtr& impl, const Target& target) {
  return emit_c(impl, target).code.find("__builtin_prefetch(") != std::string::npos;
}

/// The basic blocks of LLVM IR `ir` that call llvm.prefetch and do nothing with vectors: a prefetch behind a branch
/// of its own, apart from the kernel it rides with.
int prefetch_only_blocks(const std::string& ir) {
  int alone = 0;
  bool prefetch = false, vectors = false;
  std::istringstream in(ir);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != ' ') {  // a label, define, } or declare: the block before it ends
      alone += prefetch && !vectors;
      prefetch = vectors = false;
      continue;
    }
    prefetch = prefetch || line.find("@llvm.prefetch") != std::string::npos;
    vectors = vectors || line.find(" x float>") != std::string::npos;
  }
  return alone;
}

}  // namespace

TEST_CASE("which aliases stream their tiles: a rhs in GL larger than L2, in a loop that moves it",
          "[codegen][prefetch]") {
  const Target target = named_target("avx512");  // L2 1 MiB
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  auto dp = [&](const Spec& s) { return *synth.best(s, capacities(target)); };
  const Spec big = parse_spec("matmul 8x512x640 f32 serial", target);  // B: 1.25 MiB
  const Spec small = parse_spec("matmul 8x256x640 f32 serial", target);
  auto blocks = [&](const Spec& spec, bool copy) {
    Schedule s = schedule(spec, target).tile_out({8, 64}).split(128);
    s = copy ? s.move_input(1, Level::L1, Layout::blocked(1, 16)) : s.move_input(1, Level::L1);
    return s.complete(dp).impl();
  };
  CHECK(prefetches(blocks(big, false), target));  // an alias into L1: the next block into L1
  CHECK_FALSE(prefetches(blocks(big, true), target));  // a copy: none
  CHECK_FALSE(prefetches(blocks(small, false), target));  // B fits L2: it stays there between calls
  // Into L2 for a tile aliased there (locality 2: prefetcht1), into L1 otherwise (3).
  const ImplPtr in_l2 = schedule(big, target).tile_out({8, 64}).split(256).move_input(1, Level::L2).complete(dp).impl();
  CHECK_THAT(emit_c(in_l2, target).code, Contains("), 0, 2);"));
  CHECK_THAT(emit_c(blocks(big, false), target).code, Contains("), 0, 3);"));
  // The LLVM backend fetches without a branch: a branch around the fetches cut an unrolled run of FMA kernels
  // into blocks that LLVM scheduled apart, spilling broadcasts to the stack.
  const std::string ir = emit_llvm_ir(blocks(big, false), target);
  CHECK_THAT(ir, Contains("@llvm.prefetch"));
  CHECK_THAT(ir, !Contains("prefetched:"));
  CHECK(prefetch_only_blocks(ir) == 0);
  // The lhs, broadcast an element at a time, is not prefetched however large.
  const Spec tall = parse_spec("matmul 640x512x8 f32 serial", target);  // A: 1.25 MiB
  const ImplPtr lhs = schedule(tall, target).tile_out({64, 8}).split(128).move_input(0, Level::L1).complete(dp).impl();
  CHECK_FALSE(prefetches(lhs, target));
  // No loop moves the aliased operand: nothing to fetch ahead.
  const ImplPtr whole = schedule(big, target).move_input(1, Level::L1).complete(dp).impl();
  CHECK_FALSE(prefetches(whole, target));
  // Only FMA kernels carry the steps: a copy's body of moves has none.
  const Spec copy = parse_spec("move 512x640 f32 serial", target);
  CHECK_FALSE(prefetches(schedule(copy, target).tile_out({128, 64}).complete(dp).impl(), target));
}

TEST_CASE("streamed tiles' prefetches through both backends: random matmuls and convs against the reference",
          "[codegen][prefetch]") {
  // Operands larger than L2 (1 MiB on the avx512 target), cut by a loop that moves them (K blocks of a matmul's rhs
  // after a column tile, channel blocks or tap rows of a conv's filters after an output-channel tile), the tile
  // aliased in L1 (or, not streamed, copied into panels); the DP completes the body (bcast_fma or dot_fma carry the
  // steps). Some schedules have a parallel loop outside (each thread counts its own steps), some inside (none there).
  RandomSchedules r(20261128);
  INFO("seed " << r.seed << " (set KRIEK_SEED to replay)");
  const Target& target = r.target;
  auto dp = [&](const Spec& s) { return r.best(s); };
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return r.pick(lo, hi); };
  std::vector<ImplPtr> impls;
  int streamed = 0;
  for (int n = 0; n < 8; ++n) {
    Schedule s = schedule(parse_spec("matmul 1x1x1 f32", target), target);
    if (n % 2 == 0) {
      const std::int64_t m = pick(1, 12), k = pick(520, 700), c = pick(520, 700);  // B 1.03-1.87 MiB
      const std::string text = "matmul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(c) +
                               " f32" + (n % 4 == 0 ? " serial" : "");
      INFO("spec " << text);
      s = schedule(parse_spec(text, target), target);
      if (n % 4 == 2) s = s.tile_out({m, 16 * pick(4, 8)}, true);
      else s = s.tile_out({m, 16 * pick(1, 4)});
      s = s.split(pick(16, 200));
    } else {
      const std::int64_t ch = pick(100, 160), h = pick(2, 5);  // filters 3x3 x ch x 256: 0.9-1.4 MiB
      const std::string text = "conv[pad=1] 1x" + std::to_string(h) + "x" + std::to_string(h) + "x" +
                               std::to_string(ch) + " 3x3x" + std::to_string(ch) + "x256 f32 serial";
      INFO("spec " << text);
      s = schedule(parse_spec(text, target), target).apply(PadImage{Level::L2, Layout::row_major()});
      s = s.focus(s.holes().back().name).tile_out(Shape{1, h, h, 32});
      s = n % 3 == 0 ? s.split(1, 1) : s.split(pick(8, ch - 1));
    }
    s = n % 3 == 2 ? s.move_input(1, Level::L1, Layout::blocked(n % 2 == 0 ? 1 : 3, 16)) : s.move_input(1, Level::L1);
    const ImplPtr impl = s.complete(dp).impl();
    streamed += prefetches(impl, target);
    impls.push_back(impl);
  }
  CHECK(streamed >= 3);
  check_all_run(impls, target);
}
