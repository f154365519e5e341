// Action bounds and the floor of candidates folded so far (bound.h).
#include "synth/bound.h"

#include <algorithm>
#include <bit>

namespace kriek {

void sort_bounds(std::vector<ActionBound>& bounds) {
  std::sort(bounds.begin(), bounds.end(), [](const ActionBound& a, const ActionBound& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.action < b.action;
  });
}

MemoryUse least_peak(std::span<const FrontierPoint> frontier) {
  if (frontier.empty()) return {};
  MemoryUse least = frontier.front().peak;
  for (const FrontierPoint& e : frontier) {
    for (std::size_t l = 0; l < least.bytes.size(); ++l) least.bytes[l] = std::min(least.bytes[l], e.peak.bytes[l]);
  }
  return least;
}

MemoryUse class_floor(const MemoryUse& peak) {
  MemoryUse out;
  for (std::size_t l = 1; l < peak.bytes.size(); ++l) {  // GL (index 0) has no class
    const auto b = static_cast<std::uint64_t>(peak.bytes[l]);
    // Class of b > 1: (2^(w-1), 2^w] with w = bit_width(b - 1); of 1: {1}; of 0: {0}.
    out.bytes[l] = b <= 1 ? static_cast<std::int64_t>(b) : static_cast<std::int64_t>(std::bit_floor(b - 1) + 1);
  }
  return out;
}

void CandidateFloor::add(Cost cost, const MemoryUse& peak) {
  const std::uint64_t key = peak.coarse_key();
  // Only the points that cost no more can dominate the new one; it dominates those that cost no less.
  const auto cheaper = std::upper_bound(costs_.begin(), costs_.end(), cost) - costs_.begin();
  if (any_coarse_at_most(std::span(keys_).first(static_cast<std::size_t>(cheaper)), key)) return;
  std::size_t kept = static_cast<std::size_t>(std::lower_bound(costs_.begin(), costs_.end(), cost) - costs_.begin());
  for (std::size_t i = kept; i < costs_.size(); ++i) {
    if (coarse_at_most(key, keys_[i])) continue;
    costs_[kept] = costs_[i];
    keys_[kept] = keys_[i];
    ++kept;
  }
  costs_.resize(kept);
  keys_.resize(kept);
  const auto at = std::upper_bound(costs_.begin(), costs_.end(), cost) - costs_.begin();
  costs_.insert(costs_.begin() + at, cost);
  keys_.insert(keys_.begin() + at, key);
}

bool CandidateFloor::beats(const ActionBound& b) const {
  const auto cheaper = std::lower_bound(costs_.begin(), costs_.end(), b.cost) - costs_.begin();
  return any_coarse_at_most(std::span(keys_).first(static_cast<std::size_t>(cheaper)), b.peak.coarse_key());
}

}  // namespace kriek
