// to_accum: zero the output, then accumulate into it. Turns a Matmul, Conv or ReduceSum (or a Compose whose last
// stage is one) into a Block of two statements: Zero over the output, and the same Spec with accumulate set, so
// that split loops can add partial results.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is a Matmul, Conv or ReduceSum, or a Compose whose last stage is one;
///   (2) it does not accumulate already.
/// Block statements: Zero over the output (operand list {output}), then the accumulating Spec (all operands).
ExpandResult expand_to_accum(const ToAccum& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_to_accum, or nullopt when it applies.
std::optional<NotApplicable> to_accum_fails(const ToAccum& action, const Spec& spec, const Target& target);

/// The Spec's op with accumulate set (assuming precondition (1) holds).
Op accumulating(const Op& op);

}  // namespace kriek
