// A search under a memory budget (SynthOptions::max_memory): past it, solved frontiers go to a spill file and are
// read back when a fold, a rebuild or a save needs them; every frontier, decision and saved byte is the same as
// in a search without a budget.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>

#include "impl/printer.h"
#include "spec/text.h"
#include "support/random_spec.h"
#include "synth/synthesizer.h"

using namespace kriek;
using kriek::testing::random_spec;

TEST_CASE("a search past its memory budget spills frontiers and finds exactly the same ones", "[synth][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(2027);
  std::cout << "memory budget property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  const Target target = named_target("avx2");
  // A budget of one byte: every check finds the process over it, so every solved frontier is spilled.
  Synthesizer spilling(target, CostModel::for_target(target), SynthOptions{.threads = 2, .max_memory = 1});
  Synthesizer plain(target, CostModel::for_target(target), SynthOptions{.threads = 2});
  for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
    const Spec spec = random_spec(rng, kind, 8);
    INFO("spec " << spec);
    const Frontier f = spilling.solve(spec);
    CHECK(f.entries == plain.solve(spec).entries);
    if (f.empty()) continue;
    const ImplPtr a = spilling.reconstruct(spec, 0), b = plain.reconstruct(spec, 0);
    CHECK(print_impl(a) == print_impl(b));
  }
  CHECK(spilling.stats().specs_spilled.load() > 0);
  CHECK(plain.stats().specs_spilled.load() == 0);
  // What a save writes: the same bytes for every Spec.
  std::map<std::string, std::string> saved;
  plain.for_each_encoded([&](const Spec& s, const auto& f) { saved[spec_text(s)] = f->bytes(); });
  std::size_t compared = 0;
  spilling.for_each_encoded([&](const Spec& s, const auto& f) {
    const auto it = saved.find(spec_text(s));
    REQUIRE(it != saved.end());
    CHECK(it->second == f->bytes());
    ++compared;
  });
  CHECK(compared == saved.size());
  CHECK(compared == plain.stats().specs_solved.load());
}
