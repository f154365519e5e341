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
  for (const Point& p : points_) {  // by cost: only the cheaper ones can dominate the new point
    if (p.cost > cost) break;
    if (coarse_at_most(p.key, key)) return;
  }
  std::erase_if(points_, [&](const Point& p) { return cost <= p.cost && coarse_at_most(key, p.key); });
  const auto at = std::upper_bound(points_.begin(), points_.end(), cost, [](Cost c, const Point& p) { return c < p.cost; });
  points_.insert(at, Point{cost, key});
}

bool CandidateFloor::beats(const ActionBound& b) const {
  const std::uint64_t key = b.peak.coarse_key();
  for (const Point& p : points_) {  // by cost
    if (p.cost >= b.cost) return false;
    if (coarse_at_most(p.key, key)) return true;
  }
  return false;
}

}  // namespace kriek
