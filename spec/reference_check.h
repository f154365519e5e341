// Checking an implementation of a Spec against its reference semantics: random operands from a seed, the
// implementation and reference() run on the same inputs, and the largest difference judged against a tolerance
// scaled to the reduction length. The interpreter (REPL `check`) and compiled kernels (codegen) both use it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "spec/spec.h"

namespace kriek {

/// Dense row-major buffers for every operand of a Spec, inputs uniform in [-1, 1) from `seed` (the output too
/// when the Spec accumulates, else NaN so an unwritten element shows).
struct Operands {
  std::vector<std::vector<float>> buffers;
  std::vector<float*> pointers();
};
Operands random_operands(const Spec& spec, std::uint64_t seed);

struct Verification {
  double max_error = 0;     ///< largest |result - reference| over the output (infinity where one of them is NaN)
  double tolerance = 0;     ///< 2 * FLT_EPSILON * reduction length * max(1, max |reference|)
  std::int64_t worst = -1;  ///< flat index of the worst element
  bool ok() const { return max_error <= tolerance; }
};

/// Runs `implementation` once on random operands from `seed` (one dense row-major buffer per operand, the output
/// last) and compares the output it leaves with reference()'s.
Verification check_against_reference(const Spec& spec, std::uint64_t seed,
                                     const std::function<void(const std::vector<float*>&)>& implementation);

}  // namespace kriek
