// Synthetic DP table contents: distinct Specs of several op kinds with plausible frontiers of 1-4 entries using
// every Action alternative, the same for the same seed. For measuring the table at scale (bench/table.cpp) and
// for the table's tests; the frontiers are not what a search would find (their actions need not apply).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "cache/frontier.h"
#include "spec/spec.h"

namespace kriek {

/// The Spec number `i` of a family of distinct Specs (distinct because `i` is encoded in the shapes); its op
/// kind, levels, layouts and flags drawn from `rng`.
Spec synthetic_spec(std::mt19937_64& rng, std::uint64_t i);

/// A frontier of 1-4 entries in increasing cost, each a random Action alternative with up to 2 children.
Frontier synthetic_frontier(std::mt19937_64& rng);

struct SpecFrontier {
  Spec spec;
  Frontier frontier;
};

/// `count` distinct Specs numbered from `first`, with synthetic frontiers; the same seed gives the same contents.
std::vector<SpecFrontier> synthetic_contents(std::uint64_t seed, std::uint64_t first, std::uint64_t count);

}  // namespace kriek
