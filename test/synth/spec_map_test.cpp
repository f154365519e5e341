// SpecMap, the memo's insert-only map: one node per distinct Spec under concurrent inserts and lookups, across
// the tables it grows through, and absent Specs stay absent.
#include <catch2/catch.hpp>

#include <iostream>
#include <unordered_set>
#include <thread>
#include <vector>

#include "support/random_spec.h"
#include "synth/spec_map.h"

using namespace kriek;

namespace {

/// Random Specs of every op kind, with repeats (a search asks for most Specs many times).
std::vector<Spec> specs(std::mt19937_64& rng, std::size_t n) {
  std::vector<Spec> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kriek::testing::random_spec(rng, static_cast<int>(i) % kriek::testing::kOpKinds, 12));
  }
  for (std::size_t i = 0; i < n / 2; ++i) out.push_back(out[rng() % out.size()]);
  return out;
}

}  // namespace

TEST_CASE("a SpecMap keeps one node per distinct Spec, its address stable as the map grows", "[synth][spec_map]") {
  const std::uint64_t seed = kriek::testing::test_seed(20261207);
  std::cout << "spec map seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  const std::vector<Spec> all = specs(rng, 3000);
  SpecMap<int> map;
  std::vector<SpecMap<int>::Node*> first;
  std::unordered_set<Spec, SpecHash> inserted;
  for (const Spec& s : all) {
    CHECK((map.find(s) != nullptr) == inserted.contains(s));
    SpecMap<int>::Node* n = map.find_or_insert(s);
    CHECK(n->key == s);
    first.push_back(n);
    inserted.insert(s);
  }
  const std::unordered_set<const void*> distinct(first.begin(), first.end());
  CHECK(distinct.size() == inserted.size());
  CHECK(map.size() == inserted.size());
  // Past several growths every node is where it was, and found again.
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(map.find(all[i]) == first[i]);
    CHECK(map.find_or_insert(all[i]) == first[i]);
  }
  std::size_t visited = 0;
  map.for_each([&](const SpecMap<int>::Node& n) {
    ++visited;
    CHECK(n.value == 0);
  });
  CHECK(visited == inserted.size());
}

TEST_CASE("a SpecMap gives every thread the same node for a Spec under concurrent inserts", "[synth][spec_map]") {
  const std::uint64_t seed = kriek::testing::test_seed(7);
  std::cout << "spec map threads seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  const std::vector<Spec> all = specs(rng, 4000);
  SpecMap<std::atomic<int>> map;
  constexpr int kThreads = 4;
  std::vector<std::vector<const void*>> seen(kThreads, std::vector<const void*>(all.size()));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread walks the Specs from its own offset, so inserts of one Spec race between threads.
      for (std::size_t k = 0; k < all.size(); ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(t) * all.size() / kThreads) % all.size();
        auto* n = map.find_or_insert(all[i]);
        n->value.fetch_add(1);
        seen[static_cast<std::size_t>(t)][i] = n;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (int t = 1; t < kThreads; ++t) CHECK(seen[static_cast<std::size_t>(t)][i] == seen[0][i]);
    CHECK(map.find(all[i]) == seen[0][i]);
  }
  // Every request counted once on its Spec's one node.
  int counted = 0;
  map.for_each([&](const auto& n) { counted += n.value.load(); });
  CHECK(counted == kThreads * static_cast<int>(all.size()));
}
