// Reference semantics: every op kind evaluated naively on dense row-major float buffers of the operands'
// logical shapes (layouts and levels play no part). This is the meaning every other layer is checked against.
#pragma once

#include <span>

#include "spec/spec.h"

namespace kriek {

/// Computes the Spec's output. inputs[i] holds operand i; output holds the output, read first when the op
/// accumulates. Buffers are dense and row-major in the operands' shapes.
void reference(const Spec& spec, std::span<const float* const> inputs, float* output);

}  // namespace kriek
