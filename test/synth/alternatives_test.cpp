// The cheapest alternatives of a Spec (what kriek tune and the fidelity benchmark measure): the DP's pick first,
// distinct decisions cheapest first within the limits, each rebuilding to an Impl of exactly its predicted cost.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "cache/tuned.h"
#include "impl/printer.h"
#include "spec/text.h"
#include "support/temp_dir.h"
#include "synth/alternatives.h"

using namespace kriek;

namespace {

const std::vector<std::string> kSpecs = {"matmul 8x8x16 f32", "matmul 5x7x9 f32", "add 16x16 1x16 f32",
                                         "reducesum[axis=1] 8x64 f32"};

}  // namespace

TEST_CASE("alternatives: the DP's pick first, then distinct decisions by cost, each of its predicted cost",
          "[synth][alternatives]") {
  const Target target = named_target("avx2");
  for (const std::string& text : kSpecs) {
    INFO(text);
    Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
    const Spec spec = parse_spec(text, target);
    const MemoryUse limits = capacities(target);
    const std::vector<FrontierEntry> all = cheapest_alternatives(synth, spec, limits, 8);
    REQUIRE(all.size() >= 2);
    CHECK(all.size() <= 8);
    const Frontier& f = synth.solve(spec);
    const FrontierEntry& pick = f.entries[static_cast<std::size_t>(f.best_within(limits))];
    CHECK(all.front() == pick);
    std::vector<std::string> printed;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i > 1) CHECK(all[i - 1].cost <= all[i].cost);
      CHECK(all[i].peak.fits(limits));
      const ImplPtr impl = reconstruct_decision(spec, all[i], target, synthesizer_lookup(synth, nullptr));
      const ImplCost c = evaluate(impl, target, synth.model());
      CHECK(c.cost == all[i].cost);
      CHECK(c.peak == all[i].peak);
      printed.push_back(print_impl(impl));
      for (std::size_t j = 0; j < i; ++j) CHECK(printed[j] != printed[i]);
    }
    // Fewer asked, the same prefix.
    const std::vector<FrontierEntry> two = cheapest_alternatives(synth, spec, limits, 2);
    REQUIRE(two.size() == 2);
    CHECK(two[0] == all[0]);
    CHECK(two[1] == all[1]);
  }
}

TEST_CASE("alternatives stay within tighter limits", "[synth][alternatives]") {
  const Target target = named_target("avx2");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  const Spec spec = parse_spec("matmul 8x8x16 f32", target);
  MemoryUse limits = capacities(target);
  limits[Level::VRF] = 128;
  const std::vector<FrontierEntry> all = cheapest_alternatives(synth, spec, limits, 8);
  REQUIRE_FALSE(all.empty());
  for (const FrontierEntry& e : all) CHECK(e.peak[Level::VRF] <= 128);
}

TEST_CASE("distinct alternatives: the cheapest first, at most k, one per key, each rebuilt", "[synth][alternatives]") {
  const Target target = named_target("avx2");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  const Spec spec = parse_spec("matmul 8x8x16 f32", target);
  const MemoryUse limits = capacities(target);
  const FrontierLookup lookup = synthesizer_lookup(synth, nullptr);
  const std::vector<FrontierEntry> all = cheapest_alternatives(synth, spec, limits, 16);
  REQUIRE(all.size() >= 3);
  // Keyed by the printed Impl (every decision distinct): the first k alternatives in order, rebuilt.
  const auto printed = [](const ImplPtr& impl) { return print_impl(impl); };
  const std::vector<Alternative> three = distinct_alternatives(synth, spec, limits, 3, lookup, printed);
  REQUIRE(three.size() == 3);
  for (std::size_t i = 0; i < three.size(); ++i) {
    CHECK(three[i].decision == all[i]);
    CHECK(print_impl(three[i].impl) == print_impl(reconstruct_decision(spec, all[i], target, lookup)));
  }
  // A key two alternatives share keeps the cheaper: keyed by the root node's kind (its line's first word, after the
  // Spec's comment line), one per kind.
  const auto kind = [](const ImplPtr& impl) {
    const std::string text = print_impl(impl);
    const std::size_t root = text.find('\n') + 1;
    return text.substr(root, text.find_first_of(" [(", root) - root);
  };
  const std::vector<Alternative> kinds = distinct_alternatives(synth, spec, limits, 16, lookup, kind);
  REQUIRE_FALSE(kinds.empty());
  CHECK(kinds.front().decision == all.front());
  std::set<std::string> seen;
  for (const Alternative& a : kinds) CHECK(seen.insert(kind(a.impl)).second);
  CHECK(kinds.size() >= 2);
  CHECK(kinds.size() < all.size());
}

TEST_CASE("a tuned record is read back and rebuilds the Impl it names", "[synth][alternatives][tuned]") {
  const Target target = named_target("avx2");
  const CostModel model = CostModel::for_target(target);
  Synthesizer synth(target, model, SynthOptions{2});
  const Spec spec = parse_spec("matmul 8x8x16 f32", target);
  const MemoryUse limits = capacities(target);
  const std::vector<FrontierEntry> all = cheapest_alternatives(synth, spec, limits, 4);
  REQUIRE(all.size() == 4);
  const kriek::testing::TempDir dir;
  CHECK_FALSE(find_tuned(dir.path(), target, model, spec, limits));
  record_tuned(dir.path(), target, model, spec, limits, TunedRecord{all[2], 1.5e-6, 2e-6, 0xfeedbeef12345678});
  const std::optional<TunedRecord> back = find_tuned(dir.path(), target, model, spec, limits);
  REQUIRE(back);
  CHECK(back->code == 0xfeedbeef12345678);
  CHECK(back->decision.action == all[2].action);
  CHECK(back->decision.children == all[2].children);
  CHECK(back->decision.cost == all[2].cost);
  CHECK(back->seconds == 1.5e-6);
  CHECK(back->pick_seconds == 2e-6);
  const FrontierLookup lookup = synthesizer_lookup(synth, nullptr);
  CHECK(print_impl(reconstruct_decision(spec, back->decision, target, lookup)) ==
        print_impl(reconstruct_decision(spec, all[2], target, lookup)));
  // Keyed by limits, target (with its profile) and cost model; the last record of a key wins.
  MemoryUse other = limits;
  other[Level::L1] /= 2;
  CHECK_FALSE(find_tuned(dir.path(), target, model, spec, other));
  CHECK_FALSE(find_tuned(dir.path(), named_target("avx512"), model, spec, limits));
  CostModel changed = model;
  changed.vector_fma += 1;
  CHECK_FALSE(find_tuned(dir.path(), target, changed, spec, limits));
  CHECK_FALSE(find_tuned(dir.path(), target, model, parse_spec("matmul 8x8x8 f32", target), limits));
  record_tuned(dir.path(), target, model, spec, limits, TunedRecord{all[1], 1e-6, 2e-6});
  // A torn or foreign line (a crash mid-write, another version) is skipped.
  {
    std::ofstream out(dir / "tuned", std::ios::app);
    out << "tuned 1 12\ngarbage\ntuned 9 0 0 0 0 00 -\n";
  }
  const std::optional<TunedRecord> last = find_tuned(dir.path(), target, model, spec, limits);
  REQUIRE(last);
  CHECK(last->decision.action == all[1].action);
  CHECK_THROWS_WITH(record_tuned(dir / "missing", target, model, spec, limits, *last),
                    Catch::Contains("cannot write the tuned record to '" + (dir / "missing" / "tuned").string()));
}
