// select: implements a Spec directly with one of the target's leaf kernels (impl/kernel.h), the leaves of every
// complete Impl.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the kernel is legal for the Spec on the target (kernel_illegal says why not).
ExpandResult expand_select(const Select& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_select, or nullopt when it applies.
std::optional<NotApplicable> select_fails(const Select& action, const Spec& spec, const Target& target);

}  // namespace kriek
