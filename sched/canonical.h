// Canonical Specs: the search treats Specs that differ only in flags that cannot change what it finds for them
// as one Spec. The DP's memo and the DP table key on canonical_spec(); an Impl is still rebuilt on the Spec
// asked for (every stored action applies to it, with the same cost, and its children canonicalize to the
// stored children). Each rule holds for the actions enumerate_actions offers and the cost model in impl/cost.h:
//   1. serial_only is dropped where parallel_reachable is false (impl/parallel_rule.h): enumerate_actions
//      offers parallel loops only from kParallelMinFlops of work up (a Move or Zero from kParallelMinElements
//      elements), and no subproblem does more work than its parent (tiles, splits and slides less, moves,
//      to_accum and blocks the same, pipeline stages part of it) or holds a larger buffer than its largest
//      operand, padded image or intermediate, so the flag forbids nothing below it.
//   2. aligned is set for operands in L1 that are not blocked. (A blocked operand's alignment tells whether its
//      tiles start at panel boundaries, which decides whether a row of a panel is contiguous and can move to
//      VRF: impl/tiling.cpp's within_one_block, sched/support's register_rows_dense.) Alignment costs only lines brought from a level into a faster cache
//      (an aliasing move's source: no cache is faster than L1) and vec_load / vec_store beyond L1, and decides
//      only whether a packing copy within the operand's own level applies, which enumerate_actions never
//      offers. Tiles of an L1 operand stay in L1; moves out of it go into registers, which are always aligned.
//   3. shared is cleared where no parallel loop can run below (serial_only, or parallel_reachable false): the
//      cost model reads it only at parallel loops (the lines a core reads of a buffer the team wrote).
// Preconditions: none (any Spec; an invalid one comes back with only these flags changed).
#pragma once

#include <optional>

#include "spec/spec.h"

namespace kriek {

/// Bumped when a rule changes which Specs are one: a table's frontiers name their children by canonical Spec, so
/// a table written under other rules cannot rebuild its Impls (cache/action_codec.cpp's vocabulary carries it,
/// with the constants the rules read).
inline constexpr int kCanonicalRulesVersion = 3;

/// The Spec with serial_only and alignment normalized where they cannot matter (rules above).
Spec canonical_spec(const Spec& spec);
/// canonical_spec(spec) where it differs from `spec`, else nullopt: the memo's lookups, which would otherwise
/// count a serial Spec's work and buffers twice (is_canonical, then canonical_spec).
std::optional<Spec> canonicalized(const Spec& spec);
/// True when canonical_spec(spec) == spec (without building it).
bool is_canonical(const Spec& spec);

}  // namespace kriek
