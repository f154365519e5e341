// bufferize: pipeline buffer insertion (the Kriek report's section 2.3). Cuts a Compose before stage `cut`: the
// head stages write an intermediate buffer at `level` in `layout`, the tail stages read it.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is a Compose;
///   (2) 1 <= cut < the number of stages;
///   (3) the target has `level`;
///   (4) `level` is not a register level: pipeline buffers live in memory (a head that should write registers
///       moves its output there instead);
///   (5) `layout` is valid for the intermediate's rank.
/// The buffer: the intermediate's shape (compose_intermediate_shapes), the output's dtype, `level`, `layout`,
/// aligned and contiguous. Children: head, tail (a primitive op when one stage remains).
ExpandResult expand_bufferize(const Bufferize& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_bufferize, or nullopt when it applies.
std::optional<NotApplicable> bufferize_fails(const Bufferize& action, const Spec& spec, const Target& target);

}  // namespace kriek
