// Checking an implementation of a Spec against its reference semantics: random operands from a seed, the
// implementation and reference() run on the same inputs, and the largest difference judged against a tolerance
// scaled to the reduction length. The interpreter (REPL `check`) and compiled kernels (codegen) both use it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "spec/spec.h"

namespace kriek {

/// A buffer for every operand of a Spec in the operand's own layout (what a kernel of the Spec takes), inputs
/// uniform in [-1, 1) from `seed` (the output too when the Spec accumulates, else NaN so an unwritten element
/// shows); the padding of a blocked layout is 0 in inputs. `dense` holds the same values dense and row-major in
/// the logical shapes (what reference() takes).
struct Operands {
  std::vector<std::vector<float>> buffers;
  std::vector<std::vector<float>> dense;
  std::vector<float*> pointers();
};
Operands random_operands(const Spec& spec, std::uint64_t seed);

/// `dense` (row-major values of t's shape) placed in t's layout: a buffer of t.layout.buffer_elements, the
/// padding set to `padding`.
std::vector<float> to_layout(const TensorSpec& t, const std::vector<float>& dense, float padding = 0.0f);
/// The inverse: t's elements from a buffer in t's layout, dense and row-major.
std::vector<float> from_layout(const TensorSpec& t, const std::vector<float>& buffer);

struct Verification {
  double max_error = 0;     ///< largest |result - reference| over the output (infinity where one of them is NaN)
  double tolerance = 0;     ///< 2 * FLT_EPSILON * reduction length * max(1, max |reference|)
  std::int64_t worst = -1;  ///< flat index of the worst element
  bool ok() const { return max_error <= tolerance; }
};

/// Runs `implementation` once on random operands from `seed` (one buffer per operand in its layout, the output
/// last) and compares the output it leaves with reference()'s.
Verification check_against_reference(const Spec& spec, std::uint64_t seed,
                                     const std::function<void(const std::vector<float*>&)>& implementation);

}  // namespace kriek
