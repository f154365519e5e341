// bufferize: pipeline buffer insertion (the Kriek report's section 2.3). Cuts a Compose before stage `cut`: the
// head stages write an intermediate buffer at `level` in `layout`, the tail stages read it.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is a Compose;
///   (2) 1 <= cut < the number of stages;
///   (3) the target has `level`;
///   (4) a register buffer (a fused epilogue: the head's register tile is the tail's input, never stored) is
///       one element in RF, or in VRF whole row-major vector registers or register panels (rows that end in a
///       partial register: impl/tiling.h's register_panels), within the level's capacity;
///   (5) `layout` is valid for the intermediate's rank (checked before (4)).
/// The buffer: the intermediate's shape (compose_intermediate_shapes), the output's dtype, `level`, `layout`,
/// aligned and contiguous, and in VRF the target's vector size. Children: head, tail (a primitive op when one stage remains).
ExpandResult expand_bufferize(const Bufferize& action, const Spec& spec, const Target& target);

/// The intermediate's shape before stage `cut` of `c`, the op of `spec` (1 <= cut < the number of stages).
Shape bufferize_intermediate(const Compose& c, const Spec& spec, std::size_t cut);

/// The failed precondition of expand_bufferize, or nullopt when it applies.
std::optional<NotApplicable> bufferize_fails(const Bufferize& action, const Spec& spec, const Target& target);

}  // namespace kriek
