// Pareto frontiers: for one Spec, the Impls (as decisions) that no other beats in both cost and peak memory.
// Memory is compared coarsely (MemoryUse::coarse: each bounded level rounded up to a power of two), so a frontier
// keeps at most one entry per memory class and stays small; entries store their exact cost and peak.
// Entries are kept in a total order (cost, then peak per level, then the action's enumeration rank) so that a
// frontier never depends on the order in which parallel tasks finished.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "impl/cost.h"
#include "impl/memory.h"
#include "sched/action.h"

namespace kriek {

/// One frontier entry: what to do (the action) and, for each child the action creates, which entry of that
/// child's frontier to use. Enough to rebuild the Impl without search.
struct FrontierEntry {
  Cost cost = 0;
  MemoryUse peak;
  Action action;
  std::vector<std::uint32_t> children;
  /// Rank of the action in this Spec's enumeration: the last tie-break, never stored as the action's identity.
  std::uint32_t rank = 0;

  friend bool operator==(const FrontierEntry& a, const FrontierEntry& b) {
    return a.cost == b.cost && a.peak == b.peak && a.action == b.action && a.children == b.children;
  }
};

/// Entries sorted by cost ascending; mutually non-dominated.
struct Frontier {
  std::vector<FrontierEntry> entries;

  bool empty() const { return entries.empty(); }
  /// Index of the cheapest entry whose peak fits `limits` (0 = unbounded level), or -1.
  std::ptrdiff_t best_within(const MemoryUse& limits) const;
};

/// The total order of entries: cost, then peak (level by level), then rank.
bool entry_before(const FrontierEntry& a, const FrontierEntry& b);
/// True when `a` is at least as good as `b` in cost and in every level's coarse memory.
bool dominates(const FrontierEntry& a, const FrontierEntry& b);

/// Sorts `entries` by entry_before and removes every entry dominated by an earlier one.
void pareto_filter(std::vector<FrontierEntry>& entries);

/// The filter behind pareto_filter, for anything with a `peak`: stable-sorts `items` by `before` (which must
/// order by cost first) and drops each item whose coarse memory is no smaller anywhere than that of an earlier
/// kept item (which costs no more).
template <class T, class Before>
void pareto_keep(std::vector<T>& items, Before before) {
  std::stable_sort(items.begin(), items.end(), before);
  std::vector<T> kept;
  std::vector<MemoryUse> kept_coarse;
  for (auto& item : items) {
    const MemoryUse c = item.peak.coarse();
    bool dominated = false;
    for (const MemoryUse& k : kept_coarse) dominated = dominated || k.at_most(c);
    if (dominated) continue;
    kept.push_back(std::move(item));
    kept_coarse.push_back(c);
  }
  items = std::move(kept);
}

}  // namespace kriek
