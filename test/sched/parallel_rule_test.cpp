// The parallel rule (impl/parallel_rule.h): which Specs get parallel loops, and the bound canonical rule 1 drops
// serial_only under, which no action below a Spec may exceed (checked on random Specs and their subproblems).
#include <catch2/catch.hpp>

#include <iostream>

#include "helpers.h"
#include "sched/action.h"
#include "sched/canonical.h"
#include "sched/enumerate.h"
#include "spec/text.h"
#include "support/random_spec.h"

using namespace kriek;
using namespace kriek::sched_test;

namespace {

Spec spec_of(const std::string& text) { return parse_spec(text, avx512()); }

bool any_parallel(const Spec& spec) {
  for (const Action& a : enumerate_actions(spec, avx512())) {
    if (const auto* t = std::get_if<TileOut>(&a); t && t->parallel) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("parallel rule: work for computing Specs and elements for moves and elementwise ops", "[sched][parallel]") {
  CHECK(any_parallel(spec_of("matmul 64x32x64 f32")));  // 2^18 FLOPs
  CHECK_FALSE(any_parallel(spec_of("matmul 64x31x64 f32")));
  // Counted in whole 16-lane registers: 64x32x63 fills as many as 64x32x64; 1024x64x2's 2^18 FLOPs take registers
  // of 2 lanes used (its B transposed: 2.35 us serial, 1.8 on 2 threads); 17x160x3 stays below.
  CHECK(any_parallel(spec_of("matmul 64x32x63 f32")));
  CHECK(parallel_worthwhile(spec_of("matmul 1024x64x2 f32")));
  CHECK_FALSE(parallel_worthwhile(spec_of("matmul 17x160x3 f32")));
  // A copy or a clearing of 2^14 elements runs on the team; one row fewer does not.
  CHECK(any_parallel(spec_of("move (128x128 f32 GL row -> 128x128 f32 L2 row)")));
  CHECK_FALSE(any_parallel(spec_of("move (127x128 f32 GL row -> 127x128 f32 L2 row)")));
  CHECK(any_parallel(spec_of("zero 128x128 f32")));
  CHECK_FALSE(any_parallel(spec_of("zero 128x128 f32 serial")));
  CHECK(parallel_worthwhile(spec_of("zero 128x128 f32")));
  CHECK_FALSE(parallel_worthwhile(spec_of("zero 64x128 f32")));
  // Elementwise ops stream their operands as a copy does: 2^14 output elements (far below 2^19 operations).
  CHECK(any_parallel(spec_of("relu 128x128 f32")));
  CHECK_FALSE(any_parallel(spec_of("relu 127x128 f32")));
  CHECK(parallel_worthwhile(spec_of("add 256x256 1x256 f32")));
  CHECK_FALSE(parallel_worthwhile(spec_of("add 64x64 1x64 f32")));
  // So do pipelines of them; reductions, and pipelines with any other stage, count their operations (a
  // reduction's column strips do not scale: issue 13).
  CHECK(parallel_worthwhile(spec_of("compose[add, relu] 256x256 256x256 f32")));
  CHECK_FALSE(parallel_worthwhile(spec_of("reducesum[axis=1] 256x256 f32")));
  // 2^13 outputs, 2^17 operations.
  CHECK_FALSE(parallel_worthwhile(spec_of("compose[matmul, relu] 16x8 8x512 f32")));
}

TEST_CASE("parallel rule: a padded image counts toward the bound canonical rule 1 keeps serial_only by",
          "[sched][parallel]") {
  // 4.6 kFLOP (74 k in registers of 16 lanes) and a 126x126 image, but pad_image makes a 128x128 buffer whose
  // zeroing may run in parallel.
  const Spec padded = spec_of("conv[stride=8,pad=1] 1x126x126x1 3x3x1x1 f32 serial");
  CHECK(flop_count(padded, kParallelLanes) < kParallelMinFlops);
  CHECK(parallel_reachable(padded));
  CHECK(canonical_spec(padded).serial_only);
  // Without the padding nothing below it is worth a team: the flag is dropped.
  const Spec unpadded = spec_of("conv[stride=8] 1x126x126x1 3x3x1x1 f32 serial");
  CHECK_FALSE(parallel_reachable(unpadded));
  CHECK_FALSE(canonical_spec(unpadded).serial_only);
}

TEST_CASE("canonical rule 3: shared is kept only where a parallel loop may read it", "[sched][parallel]") {
  Spec big = spec_of("matmul (256x256 f32 L2 row shared, 256x256 f32 GL row -> 256x256 f32 GL row)");
  REQUIRE(big.operands[0].shared);
  CHECK(is_canonical(big));
  CHECK(canonical_spec(big).operands[0].shared);
  Spec serial = big;
  serial.serial_only = true;
  CHECK_FALSE(is_canonical(serial));
  CHECK_FALSE(canonical_spec(serial).operands[0].shared);
  CHECK(canonical_spec(serial).serial_only);  // rule 1 keeps it: 2^25 FLOPs
  const Spec small = spec_of("matmul (8x8 f32 L2 row shared, 8x8 f32 GL row -> 8x8 f32 GL row)");
  CHECK_FALSE(canonical_spec(small).operands[0].shared);
  // The spec text round-trips the attribute.
  CHECK(spec_text(big).find("256x256 f32 L2 row shared") != std::string::npos);
}

TEST_CASE("parallel rule: no subproblem is parallel_reachable where its parent is not", "[sched][parallel][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(77);
  std::cout << "parallel rule seed " << seed << " (KRIEK_SEED overrides)\n";
  std::mt19937_64 rng(seed);
  std::size_t checked = 0, below = 0;
  for (int round = 0; round < 6; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      // Extents up to 96 put Specs on both sides of the bounds.
      std::vector<Spec> level{kriek::testing::random_spec(rng, kind, 96)};
      for (int depth = 0; depth < 3 && !level.empty(); ++depth) {
        std::vector<Spec> next;
        for (const Spec& spec : level) {
          const bool reachable = parallel_reachable(spec);
          below += reachable ? 0 : 1;
          const std::vector<Action> actions = enumerate_actions(spec, avx512());
          for (std::size_t i = 0; i < actions.size(); i += 1 + actions.size() / 16) {
            const ApplyResult r = apply(actions[i], spec, avx512());
            const auto* impl = std::get_if<ImplPtr>(&r);
            REQUIRE(impl);
            for (const auto* h : holes(*impl)) {
              INFO("spec " << text(spec) << " action " << action_text(actions[i], spec) << " child "
                           << text(h->spec));
              if (!reachable) {
                CHECK_FALSE(parallel_reachable(h->spec));
                CHECK_FALSE(parallel_worthwhile(h->spec));
              }
              ++checked;
              if (next.size() < 12) next.push_back(h->spec);
            }
          }
        }
        level = std::move(next);
      }
    }
  }
  CHECK(checked > 500);
  CHECK(below > 20);
}
