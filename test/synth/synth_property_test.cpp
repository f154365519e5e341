// Property tests of the DP: on random Specs of every op kind, synthesized Impls compute the reference, more
// memory never raises the optimal cost, thread counts do not change frontiers, frontier entries are mutually
// non-dominated and each rebuilds to an Impl with exactly the stored cost and peak, and the flags canonical_spec
// normalizes do not change frontiers.
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>
#include <sstream>

#include "impl/interpreter.h"
#include "sched/canonical.h"
#include "spec/reference.h"
#include "support/random_spec.h"
#include "synth/synthesizer.h"

using namespace kriek;
using kriek::testing::random_data;
using kriek::testing::random_spec;

namespace {

const Target& avx512() {
  static const Target t = named_target("avx512");
  return t;
}

std::string text(const Spec& s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

/// Interprets `impl` on random inputs and compares with the reference; returns the largest relative error.
double max_error(const ImplPtr& impl, std::mt19937_64& rng) {
  const Spec& spec = impl->spec;
  std::vector<std::vector<float>> data;
  for (const TensorSpec& t : spec.operands) data.push_back(random_data(rng, t.elements()));
  std::vector<float> expected = data.back();
  std::vector<const float*> inputs;
  for (std::size_t i = 0; i + 1 < data.size(); ++i) inputs.push_back(data[i].data());
  reference(spec, inputs, expected.data());
  std::vector<float*> operands;
  for (auto& d : data) operands.push_back(d.data());
  interpret(impl, operands);
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double scale = std::max(1.0, std::abs(static_cast<double>(expected[i])));
    worst = std::max(worst, std::abs(static_cast<double>(data.back()[i]) - expected[i]) / scale);
  }
  return worst;
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
          if (i != j) CHECK_FALSE(dominates(f.entries[i], f.entries[j]));
        }
        const ImplPtr impl = synth.reconstruct(spec, i);
        REQUIRE(is_complete(impl));
        const ImplCost c = evaluate(impl, avx512(), synth.model());
        CHECK(c.cost == f.entries[i].cost);
        CHECK(c.peak == f.entries[i].peak);
        CHECK(max_error(impl, rng) < 1e-4);
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
      // Querying one frontier with a larger budget never costs more either.
      MemoryUse limit = capacities(large);
      limit[Level::L1] = 1024;
      const auto i = b.best_within(limit);
      if (i >= 0) CHECK(b.entries.front().cost <= b.entries[static_cast<std::size_t>(i)].cost);
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
    const Frontier* g = two.find(s);
    REQUIRE(g != nullptr);
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
      // Too little work for serial_only to matter, and inputs in L1 that are not aligned.
      spec.serial_only = true;
      for (std::size_t i = 0; i + 1 < spec.operands.size(); ++i) {
        if ((rng() & 1) == 0) {
          spec.operands[i].level = Level::L1;
          spec.operands[i].aligned = false;
        }
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
  CHECK(keyed.find(serial) == keyed.find(canonical_spec(serial)));
}
