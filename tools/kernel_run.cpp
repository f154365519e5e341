// The shared compile-verify-time report (see kernel_run.h).
#include "tools/kernel_run.h"

#include <iomanip>
#include <ostream>

#include "codegen/emit_c.h"
#include "codegen/measure.h"
#include "spec/error.h"

namespace kriek::tools {

int run_kernel(const ImplPtr& impl, const Target& target, const KernelRunOptions& options, std::ostream& out) {
  if (!codegen::host_runs(target)) {
    user_error("this machine cannot run ", isa_name(target.isa), " code (the host is ", isa_name(host_target().isa),
               "); kriek emit writes the kernel without running it");
  }
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

  const codegen::CSource c = codegen::emit_c(impl, target);
  const std::filesystem::path source = dir / (c.function + ".c");
  codegen::LoadedKernel kernel;
  try {
    kernel = codegen::compile_and_load(c, target, dir);
  } catch (const codegen::CompileError&) {
    keep = true;
    throw;
  }
  if (options.threads > 0) kernel.set_threads(options.threads);
  out << "kernel: " << c.function << (c.uses_openmp ? " (OpenMP)" : "") << ", workspace " << c.workspace_bytes
      << " bytes" << (keep ? ", source " + source.string() : std::string()) << "\n";

  const Verification v = codegen::verify(kernel, impl->spec, options.seed);
  const auto flags = out.flags();
  out << std::setprecision(3);
  if (!v.ok()) {
    keep = true;
    out << "NOT verified: max error " << v.max_error << " at output element " << v.worst << " (tolerance "
        << v.tolerance << "); the source is kept at " << source.string() << "\n";
    out.flags(flags);
    return 3;
  }
  out << "verified: max error " << v.max_error << " (tolerance " << v.tolerance << ", seed " << options.seed << ")\n";
  const codegen::Timing t = codegen::time_kernel(kernel, impl->spec, options.budget);
  if (options.median_seconds) *options.median_seconds = t.median_seconds;
  const double peak = codegen::measured_peak_gflops(target, dir);
  // Parallel kernels are judged against the peak of the cores they run on.
  const int threads = c.uses_openmp ? kernel.max_threads() : 1;
  out << std::fixed << std::setprecision(2) << "time: median " << t.median_seconds * 1e6 << " us per call ("
      << t.samples << " samples of " << t.calls_per_sample << " calls): " << t.gflops << " GFLOP/s, "
      << std::setprecision(1) << 100 * t.gflops / (peak * threads) << "% of "
      << (threads > 1 ? std::to_string(threads) + " x " : std::string()) << "the measured single-core peak " << peak
      << " GFLOP/s\n";
  out.flags(flags);
  return 0;
}

}  // namespace kriek::tools
