// The cheapest distinct Impls of a Spec by the cost model, for measuring them (`kriek tune`, bench/fidelity):
// its frontier entries within memory limits and, for every legal action, that action's cheapest completion (each
// child's cheapest entry that fits beside the action's own buffers), as decisions the table can rebuild.
#pragma once

#include <cstddef>
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

}  // namespace kriek
