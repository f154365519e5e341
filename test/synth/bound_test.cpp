// Bounds that skip folds (synth/bound.h): memory-class floors, the candidate floor, and the property that a
// search with pruning finds exactly the frontiers of one without, on random Specs of every op kind.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "spec/text.h"
#include "support/random_spec.h"
#include "synth/bound.h"
#include "synth/synthesizer.h"

using namespace kriek;
using kriek::testing::random_spec;

namespace {

const Target& avx512() {
  static const Target t = named_target("avx512");
  return t;
}

MemoryUse at(Level l, std::int64_t bytes) {
  MemoryUse m;
  m[l] = bytes;
  return m;
}

}  // namespace

TEST_CASE("class_floor: the least bytes of each level's memory class", "[synth][bound]") {
  for (Level l : {Level::L1, Level::VRF}) {  // L1's classes start at kSmallestClass, VRF's at one byte
    for (std::int64_t b : {0, 1, 2, 3, 4, 5, 8, 9, 1000, 1024, 1025, 2047, 2048, 2049, 32768}) {
      INFO(level_name(l) << " bytes " << b);
      const MemoryUse m = at(l, b);
      const MemoryUse f = class_floor(m);
      CHECK(f.coarse_key() == m.coarse_key());
      CHECK(f.at_most(m));
      if (f[l] > 0) CHECK(at(l, f[l] - 1).coarse_key() != m.coarse_key());
    }
  }
  CHECK(class_floor(at(Level::VRF, 1000))[Level::VRF] == 513);
  CHECK(class_floor(at(Level::L1, 3000))[Level::L1] == 2049);
  CHECK(class_floor(at(Level::L1, kSmallestClass[static_cast<std::size_t>(Level::L1)]))[Level::L1] == 1);
  CHECK(class_floor(at(Level::GL, 1000))[Level::GL] == 0);  // main memory has no class
}

TEST_CASE("class_cap: register use by presence only for Specs with no operand in registers", "[synth][bound]") {
  Spec memory = parse_spec("matmul 64x64x64 f32", avx512());
  CHECK(class_cap(memory) == kRegistersByPresence);
  Spec registers = memory;
  registers.operands.back().level = Level::VRF;
  CHECK(class_cap(registers) == kEveryClass);
  registers.operands.back().level = Level::GL;
  registers.operands.front().level = Level::RF;
  CHECK(class_cap(registers) == kEveryClass);

  // Under the presence cap every amount of VRF or RF is one class, other levels keep theirs.
  CHECK(class_key(at(Level::VRF, 64), kRegistersByPresence) == class_key(at(Level::VRF, 2048), kRegistersByPresence));
  CHECK(class_key(at(Level::RF, 4), kRegistersByPresence) == class_key(at(Level::RF, 64), kRegistersByPresence));
  CHECK(class_key(at(Level::VRF, 64), kEveryClass) != class_key(at(Level::VRF, 2048), kEveryClass));
  CHECK(class_key(at(Level::VRF, 0), kRegistersByPresence) != class_key(at(Level::VRF, 64), kRegistersByPresence));
  CHECK(class_key(at(Level::L1, 2048), kRegistersByPresence) != class_key(at(Level::L1, 8192), kRegistersByPresence));
  CHECK(class_key(at(Level::L1, 2048), kRegistersByPresence) == at(Level::L1, 2048).coarse_key());
  for (std::int64_t b : {0, 1, 64, 1000, 2048}) {
    INFO("bytes " << b);
    const MemoryUse m = at(Level::VRF, b).max(at(Level::RF, b / 16)).max(at(Level::L1, 3000));
    const MemoryUse f = class_floor(m, kRegistersByPresence);
    CHECK(class_key(f, kRegistersByPresence) == class_key(m, kRegistersByPresence));
    CHECK(f.at_most(m));
    CHECK(f[Level::VRF] == std::min<std::int64_t>(b, 1));
    CHECK(f[Level::L1] == 2049);
  }
  // A floor under the presence cap beats a bound using less VRF than its candidate, since both use some.
  CandidateFloor floor(kRegistersByPresence);
  floor.add({100, at(Level::VRF, 2048)});
  CHECK(floor.beats(ActionBound{101, at(Level::VRF, 64)}));
  CHECK_FALSE(floor.beats(ActionBound{101, at(Level::L1, 64)}));  // no VRF at all
  CandidateFloor every;
  every.add({100, at(Level::VRF, 2048)});
  CHECK_FALSE(every.beats(ActionBound{101, at(Level::VRF, 64)}));
}

TEST_CASE("CandidateFloor beats a bound only with a strictly cheaper candidate of no larger class", "[synth][bound]") {
  CandidateFloor floor;
  floor.add({100, at(Level::L1, 8000)});
  CHECK(floor.beats(ActionBound{101, at(Level::L1, 8000)}));
  CHECK(floor.beats(ActionBound{101, at(Level::L1, 4800)}));  // the same class (4096, 8192]
  CHECK_FALSE(floor.beats(ActionBound{100, at(Level::L1, 8000)}));  // a tie is not beaten
  CHECK_FALSE(floor.beats(ActionBound{500, at(Level::L1, 4000)}));  // less memory
  CHECK_FALSE(floor.beats(ActionBound{500, at(Level::VRF, 64)}));   // no L1 at all
  floor.add({400, at(Level::VRF, 64)});
  CHECK(floor.beats(ActionBound{500, at(Level::VRF, 64)}));
}

TEST_CASE("CandidateFloor keeps what pareto_keep keeps of all candidates, whatever order they come in",
          "[synth][bound][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(1515);
  std::cout << "candidate floor property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  using Point = CandidateFloor::Point;
  for (int round = 0; round < 2000; ++round) {
    std::vector<Point> all(1 + rng() % 60);
    for (std::size_t i = 0; i < all.size(); ++i) {
      all[i].cost = static_cast<Cost>(rng() % 20);  // many ties
      for (Level l : {Level::L1, Level::VRF}) {
        static constexpr std::int64_t kBytes[] = {0, 64, 100, 128, 1000, 1024};
        all[i].peak[l] = kBytes[rng() % std::size(kBytes)];
      }
      all[i].rank = static_cast<std::uint32_t>(rng() % 4);
      all[i].partial = static_cast<std::uint32_t>(i);
    }
    std::vector<Point> expected = all;
    pareto_keep(expected, [](const Point& x, const Point& y) {
      if (x.cost != y.cost) return x.cost < y.cost;
      if (x.peak != y.peak) return x.peak < y.peak;
      return x.rank != y.rank ? x.rank < y.rank : x.partial < y.partial;
    });
    std::shuffle(all.begin(), all.end(), rng);
    CandidateFloor floor;
    for (const Point& p : all) floor.add(p);
    INFO("round " << round);
    REQUIRE(floor.points().size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CHECK(floor.points()[i].cost == expected[i].cost);
      CHECK(floor.points()[i].peak == expected[i].peak);
      CHECK(floor.points()[i].rank == expected[i].rank);
      CHECK(floor.points()[i].partial == expected[i].partial);
    }
  }
}

TEST_CASE("pruned folds leave every frontier exactly as without pruning", "[synth][bound][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(1414);
  std::cout << "pruning property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  Synthesizer pruned(avx512(), CostModel::for_target(avx512()), SynthOptions{.threads = 2});
  Synthesizer full(avx512(), CostModel::for_target(avx512()), SynthOptions{.threads = 2, .prune = false});
  for (int round = 0; round < 2; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      const Spec spec = random_spec(rng, kind, 13);
      std::ostringstream text;
      text << spec;
      INFO("spec " << text.str());
      CHECK(pruned.solve(spec).entries == full.solve(spec).entries);
    }
  }
  // Every Spec either solved, with its costs, peaks, actions and chosen children (equal actions of one Spec have
  // equal enumeration ranks, so the tie order is the same too).
  std::size_t compared = 0;
  full.for_each([&](const Spec& s, const Frontier& f) {
    const std::optional<Frontier> g = pruned.find(s);
    REQUIRE(g);
    REQUIRE(f.entries == g->entries);
    ++compared;
  });
  CHECK(compared == pruned.stats().specs_solved.load());
  CHECK(full.stats().actions_pruned.load() == 0);
  CHECK(pruned.stats().actions_pruned.load() > 0);
}
