// The DP's fold: how one action's children's frontiers combine into candidate entries of its Spec (cost = its own
// plus the weighted children's, peak = its own buffers plus the children's elementwise maximum), and how the
// candidates of all actions become the Spec's frontier. The Synthesizer runs it per solved Spec and per REPL
// action (action_options).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cache/frontier.h"
#include "cache/packed_frontier.h"
#include "impl/cost.h"
#include "sched/action.h"
#include "synth/bound.h"

namespace kriek {

/// A partial combination of child entries while folding an action's children: after child i, entry `entry` of
/// child i's frontier extends partial `prev` of the combinations of children 0..i-1.
struct Partial {
  Cost cost = 0;
  MemoryUse peak;
  std::uint32_t prev = 0;
  std::uint32_t entry = 0;
};

/// The partial combinations of one action's children, step by step: steps[i] holds the kept combinations of
/// children 0..i-1 (steps[0]: the empty one), so a final partial names its chosen entries through `prev`. Only the
/// first `used` steps are this action's (none when it was not folded): a Folded is reused from Spec to Spec with
/// its buffers (finish keeps one per action and thread), where a fold's four or five heap blocks had come and gone
/// per action (matmul 64x4096x64: 4.9% fewer instructions, 7.7% fewer L1 misses).
struct Folded {
  NodeCost nc;
  std::vector<std::vector<Partial>> steps;
  std::size_t used = 0;

  bool folded() const { return used > 0; }
  /// The combinations of every child (empty when none fits).
  const std::vector<Partial>& last() const { return steps[used - 1]; }
};

/// Folds the children's frontiers of one action (cost = base + sum of weight x child cost, peak = own + the
/// children's elementwise maximum), keeping the partial combinations within `capacity` that no other beats in
/// the memory classes `cap` tells apart (bound.h's class_cap of the Spec folded for; a `floor`'s own).
/// With a `floor`, also drops each partial all of whose completions, and all it would have beaten, the floor's
/// candidates beat (bound.h: the partial's class_floor). Leaves last() empty when nothing fits.
void fold(std::span<const std::span<const FrontierPoint>> child, std::span<const MemoryUse> least,
          const MemoryUse& capacity, std::uint64_t cap, const CandidateFloor* floor, Folded& f);

/// Adds the candidates of action `rank`'s fold `f` (its last step's partials with the action's own cost and
/// memory) to `floor`.
void add_candidates(std::uint32_t rank, const Folded& f, CandidateFloor& floor);

/// The frontier of a Spec from its actions' folds, once `candidates` holds every action's (add_candidates): its
/// points in the frontier's total order, each a FrontierEntry naming the children's entries it combines.
void select_frontier(const std::vector<Action>& actions, const std::vector<Folded>& folded,
                     const CandidateFloor& candidates, Frontier& out);

}  // namespace kriek
