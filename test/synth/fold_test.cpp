// The DP's fold (synth/fold.h) against the plain definition: every product of the children's entries that fits,
// filtered by pareto_keep in generation order. The fold groups products by memory class and stops early; the
// partials it keeps, their order and the entries they choose must be exactly those of the definition.
#include <catch2/catch.hpp>

#include <iostream>
#include <random>
#include <vector>

#include "support/random_spec.h"
#include "synth/fold.h"

using namespace kriek;

namespace {

/// A child frontier: entries by cost ascending (ties allowed), peaks drawn from a few values per level so that
/// classes, equal peaks and equal costs all occur; with `wide`, from classes across every level, so that a step
/// makes hundreds of classes (its hash table grows).
std::vector<FrontierPoint> random_frontier(std::mt19937_64& rng, bool wide) {
  std::vector<FrontierPoint> out(1 + rng() % (wide ? 40 : 24));
  Cost cost = rng() % 50;
  for (FrontierPoint& e : out) {
    cost += rng() % 3 == 0 ? 0 : rng() % 40;
    MemoryUse peak;
    for (Level l : {Level::L2, Level::L1, Level::VRF}) {
      static constexpr std::int64_t kBytes[] = {0, 64, 100, 128, 129, 1000, 1024, 4096, 30000};
      peak[l] = wide ? std::int64_t{1} << (rng() % 24) : kBytes[rng() % std::size(kBytes)];
    }
    if (wide) peak[Level::RF] = std::int64_t{1} << (rng() % 12);
    peak[Level::GL] = static_cast<std::int64_t>(rng() % 3) * 4096;
    e = FrontierPoint(cost, peak);
  }
  return out;
}

/// The definition: all fitting products step by step, p by p and j by j, then pareto_keep by the classes of their
/// peaks beside the action's own buffers (the classes of the frontier entries they become).
std::vector<std::vector<Partial>> naive_fold(const std::vector<std::vector<FrontierPoint>>& child, const NodeCost& nc,
                                             const MemoryUse& capacity, std::uint64_t cap) {
  std::vector<std::vector<Partial>> steps(child.size() + 1);
  steps[0].push_back(Partial{});
  for (std::size_t i = 0; i < child.size(); ++i) {
    for (std::size_t p = 0; p < steps[i].size(); ++p) {
      for (std::size_t j = 0; j < child[i].size(); ++j) {
        const Partial q{steps[i][p].cost + nc.weights[i] * child[i][j].cost, steps[i][p].peak.max(child[i][j].peak()),
                        static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(j)};
        if (nc.own.plus(q.peak).fits(capacity)) steps[i + 1].push_back(q);
      }
    }
    struct Beside {
      Partial q;
      MemoryUse peak;  // q's beside the own buffers
    };
    std::vector<Beside> beside;
    for (const Partial& q : steps[i + 1]) beside.push_back(Beside{q, nc.own.plus(q.peak)});
    const auto before = [](const Beside& a, const Beside& b) {
      return a.q.cost != b.q.cost ? a.q.cost < b.q.cost : a.q.peak < b.q.peak;
    };
    pareto_keep(beside, before, cap);
    steps[i + 1].clear();
    for (const Beside& b : beside) steps[i + 1].push_back(b.q);
    if (steps[i + 1].empty()) {
      steps.back().clear();
      break;
    }
  }
  return steps;
}

}  // namespace

TEST_CASE("fold keeps exactly the partials of all products filtered in generation order", "[synth][fold][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(2025);
  std::cout << "fold property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  // One Folded for every round, as finish reuses one per action and thread: a round of fewer children than the
  // last must not read the steps that round left behind.
  Folded f;
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::vector<FrontierPoint>> child(1 + rng() % 4);
    const bool wide = round % 4 == 3;
    for (auto& c : child) c = random_frontier(rng, wide);
    f.nc = NodeCost{};
    f.nc.base = static_cast<Cost>(rng() % 100);
    for (std::size_t i = 0; i < child.size(); ++i) f.nc.weights.push_back(static_cast<Cost>(rng() % 4));  // 0 too
    f.nc.own[Level::L1] = static_cast<std::int64_t>(rng() % 2) * 512;
    f.nc.own[Level::VRF] = static_cast<std::int64_t>(rng() % 3) * 320;  // moves classes' boundaries
    MemoryUse capacity;
    if (rng() % 2) capacity[Level::L1] = 4096;
    if (rng() % 3 == 0) capacity[Level::VRF] = wide ? 1 << 20 : 1024;
    // Both class caps: a Spec with a register operand's, and one in memory's (registers by presence only).
    const std::uint64_t cap = round % 2 ? kEveryClass : kRegistersByPresence;
    const auto expected = naive_fold(child, f.nc, capacity, cap);
    std::vector<std::span<const FrontierPoint>> spans(child.begin(), child.end());
    std::vector<MemoryUse> least(child.size());
    fold(spans, least, capacity, cap, nullptr, f);
    INFO("round " << round << ", " << child.size() << " children, cap " << std::hex << cap << std::dec);
    REQUIRE(f.used == expected.size());
    for (std::size_t i = 1; i < expected.size(); ++i) {
      if (expected.back().empty()) break;  // a step left empty ends the fold; what it holds then is unspecified
      INFO("step " << i);
      REQUIRE(f.steps[i].size() == expected[i].size());
      for (std::size_t k = 0; k < expected[i].size(); ++k) {
        CHECK(f.steps[i][k].cost == expected[i][k].cost);
        CHECK(f.steps[i][k].peak == expected[i][k].peak);
        CHECK(f.steps[i][k].prev == expected[i][k].prev);
        CHECK(f.steps[i][k].entry == expected[i][k].entry);
      }
    }
    CHECK(f.last().empty() == expected.back().empty());
  }
}
