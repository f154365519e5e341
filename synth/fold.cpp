// The fold of children's frontiers into candidates, and the selection of a Spec's frontier from them.
#include "synth/fold.h"

#include <algorithm>

namespace kriek {
namespace {

/// Keeps the non-dominated partials, in (cost, peak, generation order) order.
void prune(std::vector<Partial>& ps) {
  pareto_keep(ps, [](const Partial& a, const Partial& b) { return a.cost != b.cost ? a.cost < b.cost : a.peak < b.peak; });
}

/// A finished combination of one action, light enough to filter before any FrontierEntry is built.
struct Candidate {
  Cost cost = 0;
  MemoryUse peak;
  std::uint32_t rank = 0;     ///< the action's index
  std::uint32_t partial = 0;  ///< its index in the action's steps.back()
};

}  // namespace

void fold(std::span<const std::span<const FrontierPoint>> child, std::span<const MemoryUse> least,
          const MemoryUse& capacity, const CandidateFloor* floor, Folded& f) {
  const NodeCost& nc = f.nc;
  // What the children after child i add at least: suffix[i] over children i.., as a bound with cost and peak
  // (only pruning reads it).
  std::vector<ActionBound> suffix(floor ? child.size() + 1 : 0);
  for (std::size_t i = floor ? child.size() : 0; i-- > 0;) {
    suffix[i].cost = suffix[i + 1].cost + nc.weights[i] * child[i].front().cost;
    suffix[i].peak = suffix[i + 1].peak.max(least[i]);
  }
  f.steps.assign(child.size() + 1, {});
  f.steps[0].push_back(Partial{});
  for (std::size_t i = 0; i < child.size(); ++i) {
    const std::vector<Partial>& partial = f.steps[i];
    std::vector<Partial>& next = f.steps[i + 1];
    next.reserve(partial.size() * child[i].size());
    for (std::size_t p = 0; p < partial.size(); ++p) {
      for (std::size_t j = 0; j < child[i].size(); ++j) {
        const FrontierPoint& e = child[i][j];
        Partial q{partial[p].cost + nc.weights[i] * e.cost, partial[p].peak.max(e.peak), static_cast<std::uint32_t>(p),
                  static_cast<std::uint32_t>(j)};
        if (!nc.own.plus(q.peak).fits(capacity)) continue;
        next.push_back(q);
      }
    }
    prune(next);
    if (floor && i + 1 < child.size()) {
      std::erase_if(next, [&](const Partial& q) {
        return floor->beats(ActionBound{nc.base + q.cost + suffix[i + 1].cost,
                                        nc.own.plus(class_floor(q.peak).max(suffix[i + 1].peak))});
      });
    }
    if (next.empty()) {
      f.steps.back().clear();
      return;
    }
  }
}

void select_frontier(const std::vector<Action>& actions, const std::vector<Folded>& folded, Frontier& out) {
  std::vector<Candidate> all;
  for (std::size_t a = 0; a < folded.size(); ++a) {
    if (folded[a].steps.empty()) continue;
    const std::vector<Partial>& last = folded[a].steps.back();
    for (std::size_t p = 0; p < last.size(); ++p) {
      all.push_back(Candidate{folded[a].nc.base + last[p].cost, folded[a].nc.own.plus(last[p].peak),
                              static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(p)});
    }
  }
  pareto_keep(all, [](const Candidate& x, const Candidate& y) {
    if (x.cost != y.cost) return x.cost < y.cost;
    if (x.peak != y.peak) return x.peak < y.peak;
    return x.rank < y.rank;
  });
  out.entries.clear();
  out.entries.reserve(all.size());
  for (const Candidate& c : all) {
    const Folded& f = folded[c.rank];
    std::vector<std::uint32_t> choice(f.steps.size() - 1);
    const Partial* at = &f.steps.back()[c.partial];
    for (std::size_t i = choice.size(); i-- > 0;) {
      choice[i] = at->entry;
      at = &f.steps[i][at->prev];
    }
    out.entries.push_back(FrontierEntry{c.cost, c.peak, actions[c.rank], std::move(choice), c.rank});
  }
}

}  // namespace kriek
