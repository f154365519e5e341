// Bounds that let the DP skip work without changing its answer. An action's candidates all cost at least its
// own cost plus each child's cheapest entry (weighted as the cost model weights children) and all use at least
// its own memory plus the children's least peaks (elementwise); a candidate already folded that costs strictly
// less and whose memory class is no larger anywhere dominates every one of them, and the frontier, which keeps
// only candidates no earlier one dominates (cache/frontier.h), is the same whether they are made or not.
// Domination chains: if the dominating candidate is itself dropped, what drops it comes earlier still and
// dominates too, so skipping is exact.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cache/frontier.h"
#include "cache/packed_frontier.h"

namespace kriek {

/// What every candidate of one action costs and uses at least.
struct ActionBound {
  Cost cost = 0;
  MemoryUse peak;
  std::uint32_t action = 0;  ///< the action's index in its Spec's enumeration
};

/// Orders bounds by cost, then action index (cheap actions first make the candidates that beat the others).
void sort_bounds(std::vector<ActionBound>& bounds);

/// The elementwise least peak among a frontier's entries (zero for an empty frontier).
MemoryUse least_peak(std::span<const FrontierPoint> frontier);

/// The least bytes per level of `peak`'s memory class (MemoryUse::coarse_key): anything in that class or above
/// uses at least this much. A partial combination q may be dropped when the floor beats q's completions with
/// this peak in place of q's: whatever q would have beaten while folding has a class at least q's and a cost at
/// least q's, so the floor beats it and all it beats in turn, and the frontier stays the same.
MemoryUse class_floor(const MemoryUse& peak);

/// The candidates folded so far, kept as the non-dominated (cost, memory class) pairs.
class CandidateFloor {
 public:
  void add(Cost cost, const MemoryUse& peak);
  /// True when some candidate added costs less than `b.cost` and uses no larger memory class at any level.
  bool beats(const ActionBound& b) const;

 private:
  // The points by cost ascending, as two arrays so that a scan of keys is one any_coarse_at_most.
  std::vector<Cost> costs_;
  std::vector<std::uint64_t> keys_;  ///< MemoryUse::coarse_key of each point
};

}  // namespace kriek
