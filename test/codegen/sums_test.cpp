// vec_sum_runs' rows from L2 summed two at a time with eight chains each (kernel_views.h's sum_runs_chains), through
// both backends: whole passes, a last pass of one row, registers left over after the loop, a masked last register,
// rows started at their cache lines; rows from main memory 4 KiB apart eight at a time with two chains each; and
// the rows elsewhere (L1, main memory, short rows) all at once.
#include <catch2/catch.hpp>

#include "codegen/emit_c.h"
#include "codegen/kernel_views.h"
#include "codegen/run_checks.h"
#include "impl/printer.h"
#include "sched/schedule.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;
using namespace kriek::test;
using Catch::Matchers::Contains;

namespace {

/// The C loop of eight chains: whole registers 8 x 16 floats at a time.
constexpr const char* kChainedStep = " += 128)";

/// reducesum[axis=1] of `text`'s input, its sums in one register (panel) and, when `split` is nonzero, the reduced
/// axis cut first (a boundary piece, and rows a multiple of 16 floats apart that are not whole registers long); the
/// rest the DP's.
ImplPtr row_sums(const Target& target, const std::string& text, std::int64_t split = 0) {
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  auto dp = [&](const Spec& s) { return *synth.best(s, capacities(target)); };
  Schedule s = schedule(parse_spec(text, target), target);
  const std::int64_t rows = s.impl()->spec.output().shape[0];
  s = s.move_output(Level::VRF, rows % 16 == 0 ? Layout::row_major() : Layout::blocked(0, 16), 16);
  if (split > 0) s = s.split(split);
  s = s.complete(dp);
  REQUIRE(s.holes().empty());
  INFO(print_impl(s.impl()));
  REQUIRE_THAT(emit_c(s.impl(), target).code, Contains("vec_sum_runs("));
  return s.impl();
}

}  // namespace

TEST_CASE("sum_runs_chains: eight chains for rows of 16 registers or more from L2 on AVX-512, else one", "[codegen]") {
  CHECK(sum_runs_chains(256, 16, Level::L2, 1) == 8);
  CHECK(sum_runs_chains(1000, 16, Level::L2, 16) == 8);
  CHECK(sum_runs_chains(255, 16, Level::L2, 1) == 1);  // 15 whole registers
  CHECK(sum_runs_chains(256, 16, Level::L1, 16) == 1);
  CHECK(sum_runs_chains(256, 16, Level::GL, 8) == 1);
  CHECK(sum_runs_chains(256, 8, Level::L2, 1) == 1);
}

TEST_CASE("sum_runs_chains from main memory: at most eight rows of one L1 set in flight", "[codegen]") {
  CHECK(sum_runs_chains(1024, 16, Level::GL, 16) == 2);  // 16 rows 4 KiB apart: two passes of 8
  CHECK(sum_runs_chains(1024, 16, Level::GL, 9) == 2);
  CHECK(sum_runs_chains(1024, 16, Level::GL, 8) == 1);  // 2 KiB apart: 8 a set, all in flight
  CHECK(sum_runs_chains(16, 16, Level::GL, 16) == 1);   // one register a row: no second chain
  CHECK(sum_runs_chains(1024, 8, Level::GL, 16) == 1);  // AVX2
  const auto rows = [](std::int64_t stride) {
    return innermost_rows(whole(Storage::memory, "in", {16, stride}, Layout::row_major()).sub({0, 0}, {16, 16}));
  };
  CHECK(rows_per_l1_set(rows(1024)) == 16);  // 4 KiB apart
  CHECK(rows_per_l1_set(rows(512)) == 8);
  CHECK(rows_per_l1_set(rows(999)) == 1);
  CHECK(rows_per_l1_set(rows(16)) == 1);  // 64 bytes apart: one line each of 16 sets
}

TEST_CASE("rows from L2 are summed two at a time with eight chains each, in both backends", "[codegen]") {
  const Target target = named_target("avx512");
  // 16 rows of 16 registers: eight passes of the loop, two iterations each.
  const ImplPtr whole = row_sums(target, "reducesum[axis=1] 16x256 f32 L2");
  CHECK_THAT(emit_c(whole, target).code, Contains(kChainedStep));
  check_runs(whole, target);
  // 5 rows of 65 registers, 1040 floats apart: passes of 2, 2 and 1 rows, one register after the loop.
  const ImplPtr odd = row_sums(target, "reducesum[axis=1] 5x1040 f32 L2");
  CHECK_THAT(emit_c(odd, target).code, Contains(kChainedStep));
  check_runs(odd, target);
  // Rows 333 floats apart, each from its first cache line (sum_runs_peel): 19 whole registers in passes, then the
  // rows' masked heads and tails.
  const ImplPtr peeled = row_sums(target, "reducesum[axis=1] 16x333 f32 L2");
  CHECK_THAT(emit_c(peeled, target).code, Contains(kChainedStep) && Contains("& 63u"));
  check_runs(peeled, target);
  // Rows of 1000 of 1040 (62 registers and 8 lanes): 6 registers after the loop, then the masked one.
  const ImplPtr tail = row_sums(target, "reducesum[axis=1] 16x1040 f32 L2", 1000);
  CHECK_THAT(emit_c(tail, target).code, Contains(kChainedStep) && Contains("_mm512_maskz_loadu_ps"));
  check_runs(tail, target);
}

TEST_CASE("rows in L1, in main memory beyond L2's share or shorter than 16 registers are summed all at once",
          "[codegen]") {
  const Target target = named_target("avx512");
  // 16x4097 floats in main memory: 262,208 bytes, just past kL2ResidentBytes.
  for (const char* text : {"reducesum[axis=1] 16x256 f32 L1", "reducesum[axis=1] 16x4097 f32",
                           "reducesum[axis=1] 16x240 f32 L2"}) {
    INFO(text);
    const ImplPtr impl = row_sums(target, text);
    CHECK_THAT(emit_c(impl, target).code, !Contains(kChainedStep));
    check_runs(impl, target);
  }
}

TEST_CASE("rows from main memory 4 KiB apart are summed eight at a time with two chains each", "[codegen]") {
  const Target target = named_target("avx512");
  // 128x1024 floats (512 KiB, beyond kL2ResidentBytes): 16 rows of one L1 set per vec_sum_runs.
  const ImplPtr impl = row_sums(target, "reducesum[axis=1] 128x1024 f32");
  CHECK_THAT(emit_c(impl, target).code, Contains(" += 32)"));
  check_runs(impl, target);
}

TEST_CASE("rows of a main-memory buffer that L2 holds are summed as from L2", "[codegen]") {
  const Target target = named_target("avx512");
  // 16x256 floats (16 KiB) and 16x4096 (256 KiB, kL2ResidentBytes) in main memory: eight chains, as from L2.
  for (const char* text : {"reducesum[axis=1] 16x256 f32", "reducesum[axis=1] 16x4096 f32"}) {
    INFO(text);
    const ImplPtr impl = row_sums(target, text);
    CHECK_THAT(emit_c(impl, target).code, Contains(kChainedStep));
    check_runs(impl, target);
  }
  const Spec spec = parse_spec("reducesum[axis=1] 16x4096 f32", target);
  const CView in = whole(Storage::memory, "in", spec.input(0).shape, spec.input(0).layout);
  CHECK(sum_runs_source(Level::GL, in) == Level::L2);
  CHECK(sum_runs_source(Level::L1, in) == Level::L1);
  const Spec big = parse_spec("reducesum[axis=1] 16x4097 f32", target);
  CHECK(sum_runs_source(Level::GL, whole(Storage::memory, "in", big.input(0).shape, big.input(0).layout)) ==
        Level::GL);
}
