// Compile (or JIT), verify and time a complete Impl, printing the report `kriek run` and the REPL's `run` share:
// "verified" with the max error (or why not), and GFLOP/s with the fraction of the measured peak.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>

#include "codegen/backend.h"
#include "impl/node.h"
#include "spec/target.h"

namespace kriek::tools {

struct KernelRunOptions {
  /// Where the source and library go (kept); nullopt: a temporary directory, removed unless something fails.
  std::optional<std::filesystem::path> keep;
  std::uint64_t seed = 1;
  /// OpenMP threads of parallel loops (0: the runtime's default, every core).
  int threads = 0;
  /// Seconds to spend timing.
  double budget = 0.5;
  /// When set, receives the median seconds per call of a kernel that verified.
  double* median_seconds = nullptr;
  /// LLVM (JIT in process; the IR is what --keep keeps) or C (compiled by $CC).
  codegen::Backend backend = codegen::kDefaultBackend;
};

/// Returns 0 when the kernel verified (then it is also timed), 3 when it disagrees with the reference (a kriek bug:
/// the source is kept and named). Compiler failures throw CompileError (a UserError) with the source kept.
int run_kernel(const ImplPtr& impl, const Target& target, const KernelRunOptions& options, std::ostream& out);

}  // namespace kriek::tools
