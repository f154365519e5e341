// The one test helper for "random operands, interpret, compare": an Impl interpreted on random operands from a
// seed against the reference semantics, judged as compiled kernels are (spec/reference_check.h).
#pragma once

#include <cstdint>
#include <vector>

#include "impl/interpreter.h"
#include "spec/reference_check.h"

namespace kriek::testing {

/// Interprets `impl` (holes run their reference) on random operands from `seed` and compares its output with
/// reference()'s.
inline Verification interpret_check(const ImplPtr& impl, std::uint64_t seed) {
  return check_against_reference(impl->spec, seed, [&](const std::vector<float*>& ops) { interpret(impl, ops); });
}

}  // namespace kriek::testing
