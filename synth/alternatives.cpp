// The cheapest alternatives of a Spec (see alternatives.h).
#include "synth/alternatives.h"

#include <algorithm>
#include <set>

#include "cache/tuned.h"
#include "sched/enumerate.h"

namespace kriek {
namespace {

/// `limits` less `own` at every bounded level; false when `own` alone does not fit.
bool remaining(const MemoryUse& limits, const MemoryUse& own, MemoryUse& out) {
  for (std::size_t i = 0; i < limits.bytes.size(); ++i) {
    if (limits.bytes[i] == 0) {
      out.bytes[i] = 0;
      continue;
    }
    out.bytes[i] = limits.bytes[i] - own.bytes[i];
    if (out.bytes[i] < 0 || (out.bytes[i] == 0 && own.bytes[i] > 0)) return false;
  }
  return true;
}

}  // namespace

std::vector<FrontierEntry> cheapest_alternatives(Synthesizer& synth, const Spec& spec, const MemoryUse& limits,
                                                 std::size_t k) {
  const Target& target = synth.target();
  const MemoryUse bound = capacities(target).tightest(limits);
  std::vector<FrontierEntry> all;
  const Frontier& frontier = synth.solve(spec);
  for (const FrontierEntry& e : frontier.entries) {
    if (e.peak.fits(bound)) all.push_back(e);
  }
  const bool has_pick = !all.empty();
  std::uint32_t rank = 0;
  for (const Action& a : enumerate_actions(spec, target)) {
    ++rank;
    const ExpandResult expanded = expand(a, spec, target);
    const auto* ex = std::get_if<Expansion>(&expanded);
    if (!ex) continue;
    const NodeCost nc = node_cost(spec, ex->kind, ex->children, target, synth.model());
    MemoryUse room;
    if (!remaining(bound, nc.own, room)) continue;
    FrontierEntry e{nc.base, nc.own, a, {}, static_cast<std::uint32_t>(frontier.entries.size()) + rank};
    MemoryUse children_peak;
    bool fits = true;
    for (std::size_t i = 0; i < ex->children.size() && fits; ++i) {
      const Frontier& child = synth.solve(ex->children[i]);
      const std::ptrdiff_t best = child.best_within(room);
      fits = best >= 0;
      if (!fits) break;
      const FrontierEntry& c = child.entries[static_cast<std::size_t>(best)];
      e.children.push_back(static_cast<std::uint32_t>(best));
      e.cost += nc.weights[i] * c.cost;
      children_peak = children_peak.max(c.peak);
    }
    if (!fits) continue;
    e.peak = nc.own.plus(children_peak);
    const bool known = std::any_of(all.begin(), all.end(), [&](const FrontierEntry& o) {
      return o.action == e.action && o.children == e.children;
    });
    if (!known && e.peak.fits(bound)) all.push_back(std::move(e));
  }
  // The DP's pick (the first frontier entry that fits) first, then by cost; frontier entries keep their places
  // among equal costs.
  std::stable_sort(all.begin() + (has_pick ? 1 : 0), all.end(),
                   [](const FrontierEntry& a, const FrontierEntry& b) { return a.cost < b.cost; });
  if (all.size() > k) all.resize(k);
  return all;
}

FrontierLookup synthesizer_lookup(const Synthesizer& synth, const Table* table) {
  return [&synth, table](const Spec& s) {
    StoredFrontier stored;
    if (auto f = synth.find(s)) {
      stored.read = std::move(f);
    } else if (table) {
      stored.read = table->lookup(s);
      stored.table = table;
    }
    return stored;
  };
}

std::vector<Alternative> distinct_alternatives(Synthesizer& synth, const Spec& spec, const MemoryUse& limits,
                                               std::size_t k, const FrontierLookup& lookup,
                                               const std::function<std::string(const ImplPtr&)>& key) {
  std::vector<Alternative> out;
  std::set<std::string> keys;
  for (FrontierEntry& e : cheapest_alternatives(synth, spec, limits, 4 * k)) {
    if (out.size() == k) break;
    ImplPtr impl = reconstruct_decision(spec, e, synth.target(), lookup);
    if (keys.insert(key(impl)).second) out.push_back({std::move(e), std::move(impl)});
  }
  return out;
}

}  // namespace kriek
