// The default schedule: a simple, always-available complete Impl of any Spec, the report's "default Matmul
// schedule" (Figure 1) generalized to every op kind. `Schedule::complete()` fills holes with it; the DP's optimal
// completer replaces it when a search is wanted.
#pragma once

#include "impl/node.h"
#include "spec/target.h"

namespace kriek {

/// A complete Impl of `spec`, built from the Sched operators:
///   - a Compose is cut after its first stage with a GL row-major buffer and both parts scheduled alike;
///   - scalar Specs (no operand in VRF): tile the output to 1s, to_accum if a reduction does not accumulate,
///     split the reduction to 1, move the output into RF, and select the scalar kernel;
///   - Specs with VRF operands use the vector kernels: tile to one register (the output's 1 x vector size for a
///     matmul), move the other operands into VRF (copying a strided or re-laid-out memory operand into a
///     row-major buffer first), zero with vec_zero, and finish with vec_load, vec_store, vec_unary, vec_binary
///     or bcast_fma.
/// At every step a legal kernel is selected first when there is one. Throws UserError naming the Spec and the
/// reason when no default exists (a dtype no kernel computes, VRF operands no vector kernel serves, an op the
/// target has no kernel for).
ImplPtr default_schedule(const Spec& spec, const Target& target);

}  // namespace kriek
