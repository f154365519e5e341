// The shared compile-verify-time report (see kernel_run.h), for either backend.
#include "tools/kernel_run.h"

#include <fstream>
#include <functional>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/measure.h"
#include "spec/error.h"

namespace kriek::tools {
namespace {

/// A kernel ready to run, and what the report says of it.
struct Built {
  codegen::LoadedKernel kernel;
  std::string function;
  std::int64_t workspace_bytes = 0;
  bool parallel = false;
  std::string parallel_note;       ///< e.g. " (OpenMP)"
  std::string note;                ///< e.g. ", LLVM JIT 21.4 ms"
  std::filesystem::path source;    ///< the C source or LLVM IR (written by keep_source when not already)
  std::function<void()> write_source;
  void keep_source() {
    if (write_source) write_source();
    write_source = nullptr;
  }
};

Built compile(const ImplPtr& impl, const Target& target, const std::filesystem::path& dir, bool& keep) {
  const codegen::CSource c = codegen::emit_c(impl, target);
  Built b;
  b.source = dir / (c.function + ".c");
  try {
    b.kernel = codegen::compile_and_load(c, target, dir);
  } catch (const codegen::CompileError&) {
    keep = true;
    throw;
  }
  b.function = c.function;
  b.workspace_bytes = c.workspace_bytes;
  b.parallel = c.uses_openmp;
  b.parallel_note = " (OpenMP)";
  return b;
}

Built jit(const ImplPtr& impl, const Target& target, const std::filesystem::path& dir, bool keep) {
  codegen::JitKernel k = codegen::jit_compile(impl, target);
  Built b;
  b.function = k.function;
  b.kernel = std::move(k.kernel);
  b.workspace_bytes = k.workspace_bytes;
  b.parallel = k.parallel;
  b.parallel_note = " (parallel, kriek's runtime)";
  std::ostringstream note;
  note << std::fixed << std::setprecision(1) << ", LLVM JIT " << k.jit_seconds * 1e3 << " ms";
  b.note = note.str();
  b.source = dir / (k.function + ".ll");
  b.write_source = [impl, target, path = b.source] {
    std::ofstream(path) << codegen::emit_llvm_ir(impl, target);
  };
  if (keep) b.keep_source();
  return b;
}

}  // namespace

int run_kernel(const ImplPtr& impl, const Target& target, const KernelRunOptions& options, std::ostream& out) {
  codegen::require_host_runs(target, "kriek emit writes the kernel without running it");
  std::filesystem::path dir;
  bool keep = false;
  if (options.keep) {
    dir = *options.keep;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) user_error("cannot make the directory '", dir.string(), "': ", ec.message());
    keep = true;
  } else {
    dir = codegen::make_temp_dir();
  }
  struct Cleanup {
    std::filesystem::path dir;
    bool& keep;
    ~Cleanup() {
      std::error_code ec;
      if (!keep) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir, keep};

  Built b = options.backend == codegen::Backend::llvm ? jit(impl, target, dir, keep) : compile(impl, target, dir, keep);
  if (options.threads > 0) b.kernel.set_threads(options.threads);
  const std::filesystem::path& source = b.source;
  out << "kernel: " << b.function << (b.parallel ? b.parallel_note : "") << ", workspace " << b.workspace_bytes
      << " bytes" << b.note << (keep ? ", source " + source.string() : std::string()) << "\n";

  const codegen::LoadedKernel& kernel = b.kernel;
  const Verification v = codegen::verify(kernel, impl->spec, options.seed);
  const auto flags = out.flags();
  out << std::setprecision(3);
  if (!v.ok()) {
    keep = true;
    b.keep_source();
    out << "NOT verified: max error " << v.max_error << " at output element " << v.worst << " (tolerance "
        << v.tolerance << "); the source is kept at " << source.string() << "\n";
    out.flags(flags);
    return 3;
  }
  out << "verified: max error " << v.max_error << " (tolerance " << v.tolerance << ", seed " << options.seed << ")\n";
  const codegen::Timing t = codegen::time_kernel(kernel, impl->spec, options.budget);
  if (options.median_seconds) *options.median_seconds = t.median_seconds;
  const double peak = codegen::measured_peak_gflops(target, dir, options.backend);
  // Parallel kernels are judged against the peak of the cores they run on.
  const int threads = b.parallel ? kernel.max_threads() : 1;
  out << std::fixed << std::setprecision(2) << "time: median " << t.median_seconds * 1e6 << " us per call ("
      << t.samples << " samples of " << t.calls_per_sample << " calls): " << t.gflops << " GFLOP/s, "
      << std::setprecision(1) << 100 * t.gflops / (peak * threads) << "% of "
      << (threads > 1 ? std::to_string(threads) + " x " : std::string()) << "the measured single-core peak " << peak
      << " GFLOP/s\n";
  out.flags(flags);
  return 0;
}

}  // namespace kriek::tools
