// The cheapest distinct Impls of a Spec by the cost model, for measuring them (`kriek tune`, bench/fidelity):
// its frontier entries within memory limits and, for every legal action, that action's cheapest completion (each
// child's cheapest entry that fits beside the action's own buffers), as decisions the table can rebuild.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "synth/synthesizer.h"

namespace kriek {

/// Up to `k` distinct decisions of `spec` (an action and an entry of each child's frontier) whose Impls fit
/// `limits`, cheapest predicted first (ties in frontier, then enumeration order); the first is the entry
/// Frontier::best_within picks. Solves `spec` and every child of every action first.
std::vector<FrontierEntry> cheapest_alternatives(Synthesizer& synth, const Spec& spec, const MemoryUse& limits,
                                                 std::size_t k);

/// The decisions `synth` holds (solved or loaded), then those of `table` (may be null), for reconstruct.
FrontierLookup synthesizer_lookup(const Synthesizer& synth, const Table* table);

/// A decision of cheapest_alternatives with its Impl rebuilt.
struct Alternative {
  FrontierEntry decision;
  ImplPtr impl;
};

/// The first `k` of cheapest_alternatives(synth, spec, limits, 4k) whose Impls differ by `key`, each rebuilt
/// through `lookup`. What kriek tune and bench/fidelity measure: their key is the emitted code's shape, since many
/// Impls differ only in moves that emit no code (aliases into a cache), and timing one kernel twice ranks noise.
std::vector<Alternative> distinct_alternatives(Synthesizer& synth, const Spec& spec, const MemoryUse& limits,
                                               std::size_t k, const FrontierLookup& lookup,
                                               const std::function<std::string(const ImplPtr&)>& key);

}  // namespace kriek
