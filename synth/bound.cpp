// Action bounds and the floor of candidates folded so far (bound.h).
#include "synth/bound.h"

#include <algorithm>
#include <bit>

#include "spec/error.h"

namespace kriek {

void check_class_cap(std::uint64_t cap) {
  KRIEK_ASSERT(cap == kEveryClass || cap == kRegistersByPresence, "class cap ", cap,
               " is neither every class nor registers by presence");
}

void sort_bounds(std::vector<ActionBound>& bounds) {
  std::sort(bounds.begin(), bounds.end(), [](const ActionBound& a, const ActionBound& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.action < b.action;
  });
}

MemoryUse least_peak(std::span<const FrontierPoint> frontier) {
  if (frontier.empty()) return {};
  MemoryUse least = frontier.front().peak();
  for (const FrontierPoint& e : frontier.subspan(1)) {
    const MemoryUse peak = e.peak();
    for (std::size_t l = 0; l < least.bytes.size(); ++l) least.bytes[l] = std::min(least.bytes[l], peak.bytes[l]);
  }
  return least;
}

MemoryUse class_floor(const MemoryUse& peak, std::uint64_t cap) {
  MemoryUse out;
  for (std::size_t l = 1; l < peak.bytes.size(); ++l) {  // GL (index 0) has no class
    const auto b = static_cast<std::uint64_t>(peak.bytes[l]);
    if (((cap >> (8 * (l - 1))) & 0xFF) == 1) {  // one class for every amount above none
      out.bytes[l] = static_cast<std::int64_t>(std::min<std::uint64_t>(b, 1));
      continue;
    }
    // Class of b above the level's smallest class s: (2^(w-1), 2^w] with w = bit_width(b - 1); of 0 < b <= s:
    // [1, s]; of 0: {0}.
    const auto smallest = static_cast<std::uint64_t>(kSmallestClass[l]);
    out.bytes[l] = b <= smallest ? static_cast<std::int64_t>(std::min<std::uint64_t>(b, 1))
                                 : static_cast<std::int64_t>(std::bit_floor(b - 1) + 1);
  }
  return out;
}

namespace {

bool before(const CandidateFloor::Point& x, const CandidateFloor::Point& y) {
  if (x.cost != y.cost) return x.cost < y.cost;
  if (x.peak != y.peak) return x.peak < y.peak;
  return x.rank != y.rank ? x.rank < y.rank : x.partial < y.partial;
}

}  // namespace

std::size_t CandidateFloor::first_of_cost(Cost cost) const {
  const auto cheaper = [&](const Point& q) { return q.cost < cost; };
  return static_cast<std::size_t>(std::partition_point(points_.begin(), points_.end(), cheaper) - points_.begin());
}

void CandidateFloor::add(const Point& p) {
  const std::uint64_t key = class_key(p.peak, cap_);
  // Cheaper points come before p; the points of p's cost (from lo, mostly none) are compared in full.
  const std::size_t lo = first_of_cost(p.cost);
  if (any_coarse_at_most(std::span(keys_).first(lo), key)) return;
  std::size_t at = lo;  // p's place among the points of its cost
  for (std::size_t i = lo; i < points_.size() && points_[i].cost == p.cost; ++i) {
    if (!before(points_[i], p)) continue;
    if (coarse_at_most(keys_[i], key)) return;
    at = i + 1;
  }
  // Drop what p dominates: the points after it of no smaller class (mostly none: find the first before copying).
  std::size_t kept = at + first_coarse_at_least(std::span(keys_).subspan(at), key);
  for (std::size_t i = kept; i < points_.size(); ++i) {
    if (coarse_at_most(key, keys_[i])) continue;
    keys_[kept] = keys_[i];
    points_[kept] = points_[i];
    ++kept;
  }
  keys_.resize(kept);
  points_.resize(kept);
  keys_.insert(keys_.begin() + static_cast<std::ptrdiff_t>(at), key);
  points_.insert(points_.begin() + static_cast<std::ptrdiff_t>(at), p);
}

bool CandidateFloor::beats(const ActionBound& b) const {
  return any_coarse_at_most(std::span(keys_).first(first_of_cost(b.cost)), class_key(b.peak, cap_));
}

}  // namespace kriek
