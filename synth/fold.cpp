// The fold of children's frontiers into candidates, and the selection of a Spec's frontier from them.
#include "synth/fold.h"

#include <algorithm>

#include <boost/container/small_vector.hpp>

#include "spec/error.h"

namespace kriek {
namespace {

/// The order of partials: cost, then peak level by level (then generation order, which callers keep).
bool before(const Partial& a, const Partial& b) { return a.cost != b.cost ? a.cost < b.cost : a.peak < b.peak; }

/// One step of a fold: the non-dominated products of the partials so far with one child's frontier entries.
/// The buffers persist per thread between steps, so that a fold allocates only the partials it keeps.
class Step {
 public:
  /// Sets `out` to what pareto_keep would keep of every product of `partial` with the entries of `child`
  /// (weighted by `weight`) that fit `capacity` beside `own`, in generation order p by p and j by j, without
  /// building them all: products are grouped by memory class as they are made (a product's class is the bytewise
  /// maximum of its factors', coarse_max; it fits when both factors do, peaks combining by maximum) of the peak
  /// beside `own`, as the action's frontier entry is classed (two peaks of one class alone may fall into two
  /// beside `own`, and the plan that fits a limit there was lost), each class
  /// keeping its first product in `before` order; then the classes, sorted, drop those an earlier one dominates.
  /// Partial p stops at the first entry of a higher cost than one no larger in any class than p's own: every
  /// later entry makes a product in a class no smaller and at a higher cost.
  void run(const std::vector<Partial>& partial, std::span<const FrontierPoint> child, Cost weight,
           const MemoryUse& own, const MemoryUse& capacity, std::uint64_t cap, std::vector<Partial>& out) {
    group(partial, child, weight, own, capacity, cap);
    order_.resize(best_.size());
    for (std::uint32_t k = 0; k < order_.size(); ++k) order_[k] = k;
    // Two classes never tie in `before` (their peaks differ), so no tie-break is needed.
    std::sort(order_.begin(), order_.end(),
              [&](std::uint32_t x, std::uint32_t y) { return before(best_[x], best_[y]); });
    out.clear();
    out.reserve(best_.size());
    kept_keys_.clear();
    for (std::uint32_t k : order_) {
      if (any_coarse_at_most(kept_keys_, keys_[k])) continue;
      out.push_back(best_[k]);
      kept_keys_.push_back(keys_[k]);
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  void group(const std::vector<Partial>& partial, std::span<const FrontierPoint> child, Cost weight,
             const MemoryUse& own, const MemoryUse& capacity, std::uint64_t cap) {
    child_keys_.clear();
    fitting_.clear();
    fitting_peaks_.clear();
    for (std::size_t j = 0; j < child.size(); ++j) {
      const MemoryUse peak = child[j].peak();
      const MemoryUse beside = own.plus(peak);
      if (!beside.fits(capacity)) continue;
      child_keys_.push_back(class_key(beside, cap));
      fitting_.push_back(static_cast<std::uint32_t>(j));
      fitting_peaks_.push_back(peak);
    }
    best_.clear();
    keys_.clear();
    table_.assign(64, {kEmpty, 0});
    for (std::size_t p = 0; p < partial.size(); ++p) {
      const std::uint64_t partial_key = class_key(own.plus(partial[p].peak), cap);
      bool stopping = false;
      Cost stop_cost = 0;
      for (std::size_t f = 0; f < fitting_.size(); ++f) {
        const FrontierPoint& e = child[fitting_[f]];
        const Cost cost = partial[p].cost + weight * e.cost;
        if (stopping && cost > stop_cost) break;
        const std::uint64_t key = coarse_max(partial_key, child_keys_[f]);
        if (key == partial_key && !stopping) {
          stopping = true;
          stop_cost = cost;
        }
        const std::size_t at = slot_of(key);
        const bool seen = table_[at].first == key;
        if (seen && cost > best_[table_[at].second].cost) continue;
        const Partial q{cost, partial[p].peak.max(fitting_peaks_[f]), static_cast<std::uint32_t>(p), fitting_[f]};
        if (seen) {
          Partial& best = best_[table_[at].second];
          if (before(q, best)) best = q;
          continue;
        }
        table_[at] = {key, static_cast<std::uint32_t>(best_.size())};
        best_.push_back(q);
        keys_.push_back(key);
        if (2 * best_.size() > table_.size()) grow();
      }
    }
  }

  std::size_t slot_of(std::uint64_t key) const {
    std::size_t at = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (table_.size() - 1);
    while (table_[at].first != key && table_[at].first != kEmpty) at = (at + 1) & (table_.size() - 1);
    return at;
  }

  void grow() {
    table_.assign(2 * table_.size(), {kEmpty, 0});
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      table_[slot_of(keys_[k])] = {keys_[k], static_cast<std::uint32_t>(k)};
    }
  }

  std::vector<std::uint64_t> child_keys_;  ///< coarse keys of the fitting entries
  std::vector<std::uint32_t> fitting_;     ///< the child's entries that fit beside the action's own buffers
  std::vector<MemoryUse> fitting_peaks_;   ///< their peaks, unpacked once
  std::vector<Partial> best_;              ///< each class's first product in `before` order
  std::vector<std::uint64_t> keys_;        ///< the class of each of best_
  std::vector<std::pair<std::uint64_t, std::uint32_t>> table_;  ///< class key -> index in best_
  std::vector<std::uint32_t> order_;
  std::vector<std::uint64_t> kept_keys_;
};

}  // namespace

void fold(std::span<const std::span<const FrontierPoint>> child, std::span<const MemoryUse> least,
          const MemoryUse& capacity, std::uint64_t cap, const CandidateFloor* floor, Folded& f) {
  check_class_cap(cap);
  const NodeCost& nc = f.nc;
  // What the children after child i add at least: suffix[i] over children i.., as a bound with cost and peak
  // (only pruning reads it).
  boost::container::small_vector<ActionBound, 4> suffix(floor ? child.size() + 1 : 0);
  for (std::size_t i = floor ? child.size() : 0; i-- > 0;) {
    suffix[i].cost = suffix[i + 1].cost + nc.weights[i] * child[i].front().cost;
    suffix[i].peak = suffix[i + 1].peak.max(least[i]);
  }
  f.used = child.size() + 1;
  if (f.steps.size() < f.used) f.steps.resize(f.used);
  f.steps[0].assign(1, Partial{});  // the steps after it are set by Step::run, keeping their buffers
  thread_local Step step;
  for (std::size_t i = 0; i < child.size(); ++i) {
    const std::vector<Partial>& partial = f.steps[i];
    std::vector<Partial>& next = f.steps[i + 1];
    step.run(partial, child[i], nc.weights[i], nc.own, capacity, cap, next);
    if (floor && i + 1 < child.size()) {
      std::erase_if(next, [&](const Partial& q) {
        return floor->beats(ActionBound{nc.base + q.cost + suffix[i + 1].cost,
                                        nc.own.plus(class_floor(q.peak, cap).max(suffix[i + 1].peak))});
      });
    }
    if (next.empty()) {
      f.steps[f.used - 1].clear();
      return;
    }
  }
}

void add_candidates(std::uint32_t rank, const Folded& f, CandidateFloor& floor) {
  KRIEK_ASSERT(f.folded(), "the candidates of action ", rank, ", which was not folded");
  const std::vector<Partial>& last = f.last();
  for (std::size_t p = 0; p < last.size(); ++p) {
    floor.add(CandidateFloor::Point{f.nc.base + last[p].cost, f.nc.own.plus(last[p].peak), rank,
                                    static_cast<std::uint32_t>(p)});
  }
}

void select_frontier(const std::vector<Action>& actions, const std::vector<Folded>& folded,
                     const CandidateFloor& candidates, Frontier& out) {
  out.entries.clear();
  out.entries.reserve(candidates.points().size());
  for (const CandidateFloor::Point& c : candidates.points()) {
    const Folded& f = folded[c.rank];
    std::vector<std::uint32_t> choice(f.used - 1);
    const Partial* at = &f.last()[c.partial];
    for (std::size_t i = choice.size(); i-- > 0;) {
      choice[i] = at->entry;
      at = &f.steps[i][at->prev];
    }
    out.entries.push_back(FrontierEntry{c.cost, c.peak, actions[c.rank], std::move(choice), c.rank});
  }
}

}  // namespace kriek
