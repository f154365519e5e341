// Running a compiled kernel: random operands, verification against the Spec's reference semantics with a
// tolerance scaled to the reduction length, and timing (warm-up, batched repetitions, median) reported in GFLOP/s
// and as a fraction of the target's peak, measured in-process by an FMA-throughput probe compiled the same way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "codegen/backend.h"
#include "codegen/compile.h"
#include "spec/reference_check.h"
#include "spec/spec.h"

namespace kriek::codegen {

/// Runs `kernel` once on random operands from `seed` and compares its output with reference()
/// (check_against_reference).
Verification verify(const LoadedKernel& kernel, const Spec& spec, std::uint64_t seed);

struct Timing {
  double median_seconds = 0;  ///< per call
  /// Per call in the fastest sample: what comparisons on a shared machine use (others only ever slow one down).
  double best_seconds = 0;
  double gflops = 0;
  int samples = 0;
  std::int64_t calls_per_sample = 0;
};

/// Times `kernel` on random operands: one warm-up call, then samples of enough back-to-back calls to last about a
/// millisecond, for about `budget_seconds` in all (at least 5 samples); the median sample per call.
Timing time_kernel(const LoadedKernel& kernel, const Spec& spec, double budget_seconds = 0.5);

/// Each kernel's time per call in each round of an alternating timing (time_rounds).
struct AlternatingRounds {
  std::vector<std::vector<double>> seconds;  ///< [kernel][round]
  /// Kernel i's median round.
  double median(std::size_t i) const;
  /// Every kernel's median round, in the kernels' order.
  std::vector<double> medians() const;
  /// The median over the rounds of kernel i's time over kernel j's in the same round: a paired ratio, which a
  /// drift of the machine from round to round (this VM's kernels move by 15% between rounds) leaves alone.
  double median_ratio(std::size_t i, std::size_t j) const;
};

/// Times `kernels`, all of `spec`, in `rounds` alternating rounds (0, 1, ..., 0, 1, ...), each round a time_kernel
/// of about `budget_seconds` on operands placed once per round for all its kernels, whose fastest sample counts.
/// Timed one after another, the last of several kernels that `kriek run` times alike measured up to 1.6x faster
/// than the first on a VM whose clock and load drift; alternating, a drift moves them all alike.
AlternatingRounds time_rounds(std::span<const LoadedKernel> kernels, const Spec& spec, int rounds,
                              double budget_seconds);

/// The emitted code with its comments dropped and every name that is not called renamed by first appearance:
/// two Impls of one Spec with equal shapes are the same kernel (they differ only in moves that emit no code, such
/// as aliases into a cache, and so in the names of their variables). Timing both would measure only noise.
std::string code_shape(const CSource& c);
/// The code shape of `impl` emitted as C for `target`: the key kriek tune and the fidelity benchmark take distinct
/// candidates by (synth::distinct_alternatives).
std::string code_shape(const ImplPtr& impl, const Target& target);

/// What measure_impl found: the verification, and the timing when the kernel verified.
struct ImplMeasurement {
  Verification verification;
  Timing timing;
};

/// Builds `impl` with entry point `function` through `backend` (C: emitted, compiled in `dir` and loaded by path,
/// so `function` must be distinct per kernel of a process; LLVM: JIT-compiled in process), without running it.
/// Compiler failures throw CompileError.
LoadedKernel build_kernel(const ImplPtr& impl, const Target& target, const std::filesystem::path& dir,
                          const std::string& function, Backend backend = kDefaultBackend);

/// Builds `impl` with entry point `function` through `backend` (C: emitted, compiled in `dir` and loaded by path,
/// so `function` must be distinct per kernel of a process; LLVM: JIT-compiled in process), verifies it on
/// `seed`'s operands and, when it verifies, times it for about `budget_seconds`. Compiler failures throw
/// CompileError.
ImplMeasurement measure_impl(const ImplPtr& impl, const Target& target, const std::filesystem::path& dir,
                             const std::string& function, std::uint64_t seed = 1, double budget_seconds = 0.5,
                             Backend backend = kDefaultBackend);

/// The target's single-core f32 peak in GFLOP/s, measured by an FMA-throughput loop compiled for the target in
/// `dir` by `backend` (once per process, target and backend; LLVM needs no C compiler).
double measured_peak_gflops(const Target& target, const std::filesystem::path& dir, Backend backend = Backend::c);

}  // namespace kriek::codegen
