// `kriek run SPEC`: synthesize, emit C, compile, verify against the reference and time: prints the Impl,
// "verified" with the max error, and GFLOP/s with the fraction of the measured peak. A kernel that disagrees with
// the reference is a kriek bug: the report names the worst element, keeps the source, and exits with status 3.
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "codegen/emit_c.h"
#include "codegen/measure.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "tools/command.h"
#include "tools/synthesis.h"

namespace kriek::tools {
namespace {

int positive(const Args& args, std::string_view flag, int fallback) {
  const std::string* v = args.get(flag);
  if (!v) return fallback;
  if (v->empty() || v->size() > 6 || v->find_first_not_of("0123456789") != std::string::npos || std::stoi(*v) < 1) {
    user_error(flag, " takes a positive number, got '", *v, "'");
  }
  return std::stoi(*v);
}

}  // namespace

int run_run(const std::vector<std::string>& raw) {
  std::vector<std::string_view> valued = kSynthValued;
  valued.insert(valued.end(), {"--keep", "--seed", "--run-threads"});
  const Args args = parse_args(raw, valued, kSynthSwitches);
  if (args.positional.size() != 1) {
    user_error("usage: kriek run SPEC [--target T] [--keep DIR] [--seed N] [--run-threads N] ...");
  }
  const int seed = positive(args, "--seed", 1);
  const int run_threads = positive(args, "--run-threads", 0);
  Synthesis s = synthesize(args.positional[0], args);
  std::cout << print_impl(s.impl) << "\n" << s.stats_line() << "\n";
  if (const std::string saved = s.save_table(); !saved.empty()) std::cout << saved << "\n";

  // Where the source and library go: --keep DIR (made if missing, kept), else a temporary directory removed at
  // the end unless something fails.
  std::filesystem::path dir;
  bool keep = false;
  if (const auto* k = args.get("--keep")) {
    dir = *k;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) user_error("cannot make the directory '", *k, "': ", ec.message());
    keep = true;
  } else {
    dir = codegen::make_temp_dir();
  }
  struct Cleanup {
    std::filesystem::path dir;
    bool* keep;
    ~Cleanup() {
      std::error_code ec;
      if (!*keep) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir, &keep};

  const codegen::CSource c = codegen::emit_c(s.impl, s.target);
  codegen::LoadedKernel kernel;
  try {
    kernel = codegen::compile_and_load(c, s.target, dir);
  } catch (const codegen::CompileError&) {
    keep = true;
    throw;
  }
  if (run_threads > 0) kernel.set_threads(run_threads);
  std::cout << "\nkernel: " << c.function << (c.uses_openmp ? " (OpenMP)" : "") << ", workspace " << c.workspace_bytes
            << " bytes" << (keep ? ", source " + (dir / (c.function + ".c")).string() : std::string()) << "\n";

  const codegen::Verification v = codegen::verify(kernel, s.spec, static_cast<std::uint64_t>(seed));
  std::cout << std::setprecision(3);
  if (!v.ok()) {
    keep = true;
    std::cout << "NOT verified: max error " << v.max_error << " at output element " << v.worst << " (tolerance "
              << v.tolerance << "); the source is kept at " << (dir / (c.function + ".c")).string() << "\n";
    return 3;
  }
  std::cout << "verified: max error " << v.max_error << " (tolerance " << v.tolerance << ", seed " << seed << ")\n";
  const codegen::Timing t = codegen::time_kernel(kernel, s.spec);
  const double peak = codegen::measured_peak_gflops(s.target, dir);
  std::cout << std::fixed << std::setprecision(2) << "time: median " << t.median_seconds * 1e6 << " us per call ("
            << t.samples << " samples of " << t.calls_per_sample << " calls): " << t.gflops << " GFLOP/s, "
            << std::setprecision(1) << 100 * t.gflops / peak << "% of the measured single-core peak "
            << peak << " GFLOP/s\n";
  return 0;
}

}  // namespace kriek::tools
