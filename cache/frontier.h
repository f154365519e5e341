// Pareto frontiers: for one Spec, the Impls (as decisions) that no other beats in both cost and peak memory.
// Memory is compared coarsely (MemoryUse::coarse: each bounded level rounded up to a power of two), so a frontier
// keeps at most one entry per memory class and stays small; entries store their exact cost and peak.
// Entries are kept in a total order (cost, then peak per level, then the action's enumeration rank) so that a
// frontier never depends on the order in which parallel tasks finished.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
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
/// order by cost first) and drops each item whose memory class (class_key under `cap`, impl/memory.h) is no
/// smaller anywhere than that of an earlier kept item (which costs no more).
/// Of items in one memory class only the first in that order can be kept, so those are dropped first (one pass
/// over a hash map): the quadratic scan then sees one item per class.
template <class T, class Before>
void pareto_keep(std::vector<T>& items, Before before, std::uint64_t cap = kEveryClass) {
  if (items.size() > 8) {
    // Open addressing over the class keys (a key has every byte below 128, so ~0 marks an empty slot): slot ->
    // (key, the earliest item of that class in (before, index) order).
    const std::size_t slots = std::bit_ceil(2 * items.size());
    std::vector<std::pair<std::uint64_t, std::uint32_t>> table(slots, {~std::uint64_t{0}, 0});
    std::vector<char> keep(items.size(), 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::uint64_t key = class_key(items[i].peak, cap);
      std::size_t at = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots - 1);
      while (table[at].first != key && table[at].first != ~std::uint64_t{0}) at = (at + 1) & (slots - 1);
      if (table[at].first != key) {
        table[at] = {key, static_cast<std::uint32_t>(i)};
        keep[i] = 1;
      } else if (before(items[i], items[table[at].second])) {
        keep[table[at].second] = 0;
        keep[i] = 1;
        table[at].second = static_cast<std::uint32_t>(i);
      }
    }
    std::size_t n = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!keep[i]) continue;
      if (n != i) items[n] = std::move(items[i]);
      ++n;
    }
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(n), items.end());
  }
  std::stable_sort(items.begin(), items.end(), before);
  std::vector<std::uint64_t> kept_keys;  // class_key of the kept items
  std::size_t kept = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::uint64_t c = class_key(items[i].peak, cap);
    if (any_coarse_at_most(kept_keys, c)) continue;
    if (kept != i) items[kept] = std::move(items[i]);
    ++kept;
    kept_keys.push_back(c);
  }
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(kept), items.end());
}

}  // namespace kriek
