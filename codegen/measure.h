// Running a compiled kernel: random operands, verification against the Spec's reference semantics with a
// tolerance scaled to the reduction length, and timing (warm-up, batched repetitions, median) reported in GFLOP/s
// and as a fraction of the target's peak, measured in-process by an FMA-throughput probe compiled the same way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "codegen/compile.h"
#include "spec/spec.h"

namespace kriek::codegen {

/// Dense row-major buffers for every operand of a Spec, inputs uniform in [-1, 1) from `seed` (the output too
/// when the Spec accumulates, else NaN so an unwritten element shows).
struct Operands {
  std::vector<std::vector<float>> buffers;
  std::vector<float*> pointers() ;
};
Operands random_operands(const Spec& spec, std::uint64_t seed);

struct Verification {
  double max_error = 0;  ///< largest |kernel - reference| over the output (infinity if either is NaN at an element)
  double tolerance = 0;  ///< 2 * FLT_EPSILON * reduction length * max(1, max |reference|)
  std::int64_t worst = -1;  ///< flat index of the worst element
  bool ok() const { return max_error <= tolerance; }
};

/// Runs `kernel` once on random operands from `seed` and compares its output with reference().
Verification verify(const LoadedKernel& kernel, const Spec& spec, std::uint64_t seed);

struct Timing {
  double median_seconds = 0;  ///< per call
  double gflops = 0;
  int samples = 0;
  std::int64_t calls_per_sample = 0;
};

/// Times `kernel` on random operands: one warm-up call, then samples of enough back-to-back calls to last about a
/// millisecond, for about `budget_seconds` in all (at least 5 samples); the median sample per call.
Timing time_kernel(const LoadedKernel& kernel, const Spec& spec, double budget_seconds = 0.5);

/// The target's single-core f32 peak in GFLOP/s, measured by an FMA-throughput loop compiled for the target in
/// `dir` (once per process and target).
double measured_peak_gflops(const Target& target, const std::filesystem::path& dir);

}  // namespace kriek::codegen
