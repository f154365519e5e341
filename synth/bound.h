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

/// The least bytes per level of `peak`'s memory class under `cap` (class_key): anything in that class or above
/// uses at least this much. A partial combination q may be dropped when the floor beats q's completions with
/// this peak in place of q's: whatever q would have beaten while folding has a class at least q's and a cost at
/// least q's, so the floor beats it and all it beats in turn, and the frontier stays the same.
MemoryUse class_floor(const MemoryUse& peak, std::uint64_t cap = kEveryClass);

/// Asserts that `cap` is one of the two class caps (kEveryClass, kRegistersByPresence), which class_floor tells
/// apart by each level's byte: checked where a cap enters a fold or a floor, not per partial.
void check_class_cap(std::uint64_t cap);

/// The candidates folded so far, kept as a Pareto set in the frontier's total order (cost, peak level by level,
/// action rank, then the candidate's index among its action's): a candidate stays unless an earlier one in that
/// order uses no larger memory class anywhere. That set does not depend on the order candidates arrive in, so
/// once every action's candidates are in, it is the Spec's frontier (select_frontier); while actions are folded
/// it is the floor that bounds the rest.
class CandidateFloor {
 public:
  /// A floor of candidates compared under class cap `cap` (class_cap of their Spec).
  explicit CandidateFloor(std::uint64_t cap = kEveryClass) : cap_(cap) { check_class_cap(cap); }

  struct Point {
    Cost cost = 0;
    MemoryUse peak;
    std::uint32_t rank = 0;     ///< the action's index
    std::uint32_t partial = 0;  ///< the candidate's index in its action's last fold step
  };

  void add(const Point& p);
  /// True when some candidate added costs less than `b.cost` and uses no larger memory class at any level.
  bool beats(const ActionBound& b) const;
  /// The kept candidates in the total order.
  std::span<const Point> points() const { return points_; }

 private:
  /// The first point of cost `cost` or more.
  std::size_t first_of_cost(Cost cost) const;

  std::uint64_t cap_;
  // Two arrays in the total order, so that a scan of keys is one any_coarse_at_most.
  std::vector<Point> points_;
  std::vector<std::uint64_t> keys_;  ///< class_key of each point
};

}  // namespace kriek
