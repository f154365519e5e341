// Ordering, dominance and filtering of frontier entries.
#include "cache/frontier.h"

#include <algorithm>

namespace kriek {

bool entry_before(const FrontierEntry& a, const FrontierEntry& b) {
  if (a.cost != b.cost) return a.cost < b.cost;
  if (a.peak != b.peak) return a.peak < b.peak;
  return a.rank < b.rank;
}

bool dominates(const FrontierEntry& a, const FrontierEntry& b) {
  return a.cost <= b.cost && a.peak.coarse().at_most(b.peak.coarse());
}

void pareto_filter(std::vector<FrontierEntry>& entries) { pareto_keep(entries, entry_before); }

std::ptrdiff_t Frontier::best_within(const MemoryUse& limits) const {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].peak.fits(limits)) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace kriek
