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

void pareto_filter(std::vector<FrontierEntry>& entries) {
  std::sort(entries.begin(), entries.end(), entry_before);
  std::vector<FrontierEntry> kept;
  std::vector<MemoryUse> kept_coarse;
  for (auto& e : entries) {
    // Every kept entry costs at most e.cost, so it dominates e when its memory is no larger anywhere.
    const MemoryUse c = e.peak.coarse();
    const bool dominated =
        std::any_of(kept_coarse.begin(), kept_coarse.end(), [&](const MemoryUse& k) { return k.at_most(c); });
    if (dominated) continue;
    kept.push_back(std::move(e));
    kept_coarse.push_back(c);
  }
  entries = std::move(kept);
}

std::ptrdiff_t Frontier::best_within(const MemoryUse& limits) const {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].peak.fits(limits)) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace kriek
