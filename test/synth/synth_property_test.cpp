// Property tests of the DP: on random Specs of every op kind, synthesized Impls compute the reference, more
// memory never raises the optimal cost, thread counts do not change frontiers, frontier entries are mutually
// non-dominated and each rebuilds to an Impl with exactly the stored cost and peak, and the flags canonical_spec
// normalizes do not change frontiers.
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>
#include <sstream>

#include "sched/canonical.h"
#include "sched/enumerate.h"
#include "spec/text.h"
#include "support/interpret_check.h"
#include "support/random_spec.h"
#include "support/tensors.h"
#include "synth/synthesizer.h"

using namespace kriek;
using kriek::testing::random_spec;

namespace {

using kriek::testing::avx512;

std::string text(const Spec& s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

}  // namespace

TEST_CASE("synthesized Impls compute the reference, frontiers are sound", "[synth][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(20261123);
  std::cout << "synth property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  Synthesizer synth(avx512(), CostModel::for_target(avx512()), SynthOptions{2});
  for (int round = 0; round < 3; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      const Spec spec = random_spec(rng, kind, 9);
      INFO("spec " << text(spec));
      const Frontier& f = synth.solve(spec);
      REQUIRE_FALSE(f.empty());
      for (std::size_t i = 0; i < f.entries.size(); ++i) {
        for (std::size_t j = 0; j < f.entries.size(); ++j) {
          INFO("entries " << i << " (cost " << f.entries[i].cost << ", " << f.entries[i].peak << ") and " << j << " (cost "
                          << f.entries[j].cost << ", " << f.entries[j].peak << ")");
          // No entry is dominated by an earlier one (frontier.h's filter); a later one may dominate an earlier one
          // only at the same cost (the earlier is first in the total order, and both stay).
          if (i < j) CHECK_FALSE(dominates(f.entries[i], f.entries[j]));
          if (i > j && dominates(f.entries[i], f.entries[j])) CHECK(f.entries[i].cost == f.entries[j].cost);
        }
        const ImplPtr impl = synth.reconstruct(spec, i);
        REQUIRE(is_complete(impl));
        const ImplCost c = evaluate(impl, avx512(), synth.model());
        CHECK(c.cost == f.entries[i].cost);
        CHECK(c.peak == f.entries[i].peak);
        CHECK(kriek::testing::interpret_check(impl, rng()).ok());
      }
    }
  }
}

TEST_CASE("more memory never raises the optimal cost", "[synth][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(7);
  std::cout << "memory monotonicity seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  // The same machine with smaller caches and register file: every Impl legal there is legal here too.
  Target small = make_target(Isa::avx512, 2048, 16384);
  for (auto& l : small.levels) {
    if (l.level == Level::VRF) l.capacity = 512;
  }
  const Target& large = avx512();
  Synthesizer tight(small, CostModel::for_target(small), SynthOptions{2});
  Synthesizer roomy(large, CostModel::for_target(large), SynthOptions{2});
  for (int round = 0; round < 2; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      const Spec spec = random_spec(rng, kind, 10);
      INFO("spec " << text(spec));
      const Frontier& a = tight.solve(spec);
      const Frontier& b = roomy.solve(spec);
      REQUIRE_FALSE(b.empty());
      if (!a.empty()) CHECK(b.entries.front().cost <= a.entries.front().cost);
      // A query within limits picks the cheapest entry whose peak fits them, and its Impl needs no more; a
      // larger budget never costs more.
      MemoryUse limit = capacities(large);
      limit[Level::L1] = 1024;
      const auto i = b.best_within(limit);
      const auto j = b.best_within(capacities(large));
      REQUIRE(j >= 0);
      for (std::size_t e = 0; e < b.entries.size(); ++e) {
        if (i < 0 || b.entries[e].cost < b.entries[static_cast<std::size_t>(i)].cost) {
          CHECK_FALSE(b.entries[e].peak.fits(limit));
        }
      }
      if (i >= 0) {
        CHECK(evaluate(roomy.reconstruct(spec, static_cast<std::size_t>(i)), large, roomy.model()).peak.fits(limit));
        CHECK(b.entries[static_cast<std::size_t>(j)].cost <= b.entries[static_cast<std::size_t>(i)].cost);
      }
    }
  }
}

TEST_CASE("action options: the DP's fold per action, within memory limits", "[synth][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(5);
  std::cout << "action options seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  Synthesizer synth(avx512(), CostModel::for_target(avx512()), SynthOptions{2});
  Synthesizer every(avx512(), CostModel::for_target(avx512()), SynthOptions{.threads = 2, .every_class = true});
  MemoryUse tight = capacities(avx512());
  tight[Level::L1] = 1024;
  tight[Level::VRF] = 512;
  for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
    const Spec spec = random_spec(rng, kind, 10);
    INFO("spec " << text(spec));
    for (Synthesizer* dp : {&synth, &every}) {
      const Frontier& f = dp->solve(spec);
      REQUIRE_FALSE(f.empty());
      for (const MemoryUse& limits : {capacities(avx512()), tight}) {
        const std::vector<ActionOption> options = dp->action_options(spec, limits);
        CHECK(options.size() == enumerate_actions(spec, avx512()).size());
        std::optional<Cost> cheapest;
        for (const ActionOption& o : options) {
          if (!o.cost) continue;
          CHECK(o.peak.fits(limits));
          if (!cheapest || *o.cost < *cheapest) cheapest = o.cost;
        }
        // The limits are powers of two, so the frontier's answer is the cheapest option's (synthesizer.h), unless
        // they cut a register level the Spec's frontier tells apart only by presence (impl/memory.h's class_cap;
        // SynthOptions::every_class tells every class apart): then the frontier may hold only dearer plans.
        const std::ptrdiff_t best = f.best_within(limits);
        const bool exact = dp == &every || class_cap(spec) == kEveryClass ||
                           limits[Level::VRF] == capacities(avx512())[Level::VRF];
        if (exact) CHECK(cheapest.has_value() == (best >= 0));
        if (best >= 0) CHECK(cheapest.has_value());
        if (best >= 0 && cheapest) {
          const Cost answer = f.entries[static_cast<std::size_t>(best)].cost;
          CHECK(*cheapest <= answer);
          if (exact) CHECK(*cheapest == answer);
        }
      }
    }
  }
}

TEST_CASE("one and two threads give identical frontiers", "[synth][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(99);
  std::cout << "thread independence seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  Synthesizer one(avx512(), CostModel::for_target(avx512()), SynthOptions{1});
  Synthesizer two(avx512(), CostModel::for_target(avx512()), SynthOptions{2});
  for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
    const Spec spec = random_spec(rng, kind, 10);
    INFO("spec " << text(spec));
    CHECK(one.solve(spec).entries == two.solve(spec).entries);
  }
  std::size_t compared = 0;
  one.for_each([&](const Spec& s, const Frontier& f) {
    const std::optional<Frontier> g = two.find(s);
    REQUIRE(g);
    CHECK(f.entries == g->entries);
    ++compared;
  });
  CHECK(compared > 100);
}

TEST_CASE("canonical Specs: the flags canonical_spec normalizes do not change a frontier", "[synth][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(31);
  std::cout << "canonical Specs seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  // `asked` solves every Spec as given (no canonical keys); `keyed` is the search as it runs.
  Synthesizer asked(avx512(), CostModel::for_target(avx512()), SynthOptions{2, false});
  Synthesizer keyed(avx512(), CostModel::for_target(avx512()), SynthOptions{2});
  for (int round = 0; round < 2; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      Spec spec = random_spec(rng, kind, 8);
      // Too little work for serial_only to matter, inputs in L1 that are not aligned, and shared buffers where no
      // parallel loop can read them.
      spec.serial_only = true;
      for (std::size_t i = 0; i + 1 < spec.operands.size(); ++i) {
        if ((rng() & 1) == 0) {
          spec.operands[i].level = Level::L1;
          spec.operands[i].aligned = false;
        }
        if ((rng() & 1) == 0 && !is_register_level(spec.operands[i].level)) spec.operands[i].shared = true;
      }
      INFO("spec " << text(spec));
      REQUIRE_FALSE(is_canonical(spec));
      const Frontier& f = asked.solve(spec);
      CHECK(f.entries == asked.solve(canonical_spec(spec)).entries);
      CHECK(f.entries == keyed.solve(spec).entries);
      for (std::size_t i = 0; i < f.entries.size(); ++i) {
        const ImplPtr impl = keyed.reconstruct(spec, i);
        CHECK(impl->spec == spec);
        const ImplCost c = evaluate(impl, avx512(), keyed.model());
        CHECK(c.cost == f.entries[i].cost);
        CHECK(c.peak == f.entries[i].peak);
      }
    }
  }
  // The search keeps one memo entry for the Spec and its canonical form.
  Spec serial = random_spec(rng, 0, 8);
  serial.serial_only = true;
  REQUIRE_FALSE(is_canonical(serial));
  const Frontier solved = keyed.solve(serial);
  const std::uint64_t specs = keyed.stats().specs_solved.load();
  CHECK(keyed.solve(canonical_spec(serial)).entries == solved.entries);
  CHECK(keyed.stats().specs_solved.load() == specs);  // no second search: one entry
  CHECK(keyed.find(serial)->entries == solved.entries);
}

TEST_CASE("a plan that fits a register limit beside its action's buffer stays on the frontier", "[synth]") {
  // Seed 43 of the action options test: a matmul into a 320-byte register buffer, then the add; under 512 bytes of
  // VRF the cheapest plan uses exactly 512. The fold classed plans by their peak without the buffer, so that plan
  // shared a class with a cheaper one that needs more than 512 beside it, and the frontier kept a dearer plan.
  const Spec spec = parse_spec("compose[matmul, add] (5x4 f32 GL row, 4x10 f32 GL row, 1x10 f32 GL row -> 5x10 f32 "
                               "GL row)", avx512());
  Synthesizer every(avx512(), CostModel::for_target(avx512()), SynthOptions{.threads = 2, .every_class = true});
  MemoryUse tight = capacities(avx512());
  tight[Level::L1] = 1024;
  tight[Level::VRF] = 512;
  const Frontier& f = every.solve(spec);
  const std::ptrdiff_t best = f.best_within(tight);
  REQUIRE(best >= 0);
  std::optional<Cost> cheapest;
  for (const ActionOption& o : every.action_options(spec, tight)) {
    if (o.cost && (!cheapest || *o.cost < *cheapest)) cheapest = o.cost;
  }
  REQUIRE(cheapest);
  CHECK(f.entries[static_cast<std::size_t>(best)].cost == *cheapest);
}
