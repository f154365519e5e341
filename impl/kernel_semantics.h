// What each leaf kernel computes, run on interpreter views: the scalar meaning of every kernel (a vector kernel
// loops over the elements of its vector).
#pragma once

#include <span>

#include "impl/kernel.h"
#include "impl/view.h"

namespace kriek {

/// Runs kernel `k` implementing `spec` on `operands` (one view per operand of `spec`, inputs then output).
void run_kernel(KernelKind k, const Spec& spec, std::span<const View> operands);

}  // namespace kriek
