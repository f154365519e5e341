// The cost of one kernel call (impl/kernel_cost.cpp), the leaves of the cost model that impl/cost.h prices
// trees with.
#pragma once

#include <cstdint>

#include "impl/cost.h"
#include "impl/kernel.h"

namespace kriek {

/// Elements of `d` per vector register (1 on scalar targets, so vector counts stay defined).
std::int64_t vector_width(const Target& target, Dtype d);

/// Cost of one call of kernel `k` on `spec`'s operands.
Cost kernel_cost(KernelKind k, const Spec& spec, const Target& target, const CostModel& m);

/// Vector registers a kernel needs beside its operands: bcast_fma's broadcast, and the rhs row when it reads it
/// from memory. They count in the VRF peak, so a register tile leaves room for them.
std::int64_t scratch_registers(KernelKind k, const Spec& spec, const Target& target);

}  // namespace kriek
