// A built kernel library against `kriek run`: for each kernel of a library's manifest, the kernel loaded from
// lib/libNAME.so into this process (the consumer's) and timed by codegen::time_kernel, which is the measure
// `kriek run` reports, and `kriek run` of the same Spec, on the library's DP table and backend, in its own process
// (its "GFLOP/s" line); alternating rounds (run, library, run, ...: the machine's load drifts alike for both), the
// ratio library / run of the medians per kernel, their geometric mean and the lowest. Issue 18's goal: within 3%.
//
//   build/bench/bench_library_speed DIR [--rounds N]
//
// DIR is a library built with a DP table (its manifest names it), so `kriek run` rebuilds the same Impls without
// searching. Build it with `cmake --build build --target bench_library_speed kriek`. Never part of the tests.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/guarded_main.h"
#include "codegen/compile.h"
#include "codegen/measure.h"
#include "spec/target.h"
#include "spec/text.h"

using namespace kriek;
namespace fs = std::filesystem;

namespace {

using bench::load_average;
using bench::median;

struct Kernel {
  std::string symbol, spec, backend;
};

/// The string value of `"key": "..."` at or after `at` in the manifest (which never escapes these fields).
std::string field(const std::string& json, const std::string& key, std::size_t at) {
  const std::string open = "\"" + key + "\": \"";
  const std::size_t start = json.find(open, at);
  if (start == std::string::npos) return "";
  const std::size_t begin = start + open.size();
  return json.substr(begin, json.find('"', begin) - begin);
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The GFLOP/s `kriek run` reports for `spec` (0 when it fails: its output goes to stderr).
double kriek_run_gflops(const Kernel& k, const std::string& table) {
  const std::string command = std::string(KRIEK_BINARY) + " run '" + k.spec + "' --table '" + table +
                              "' --backend " + k.backend + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return 0;
  std::string out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  pclose(pipe);
  const std::size_t at = out.find(" GFLOP/s");
  const std::size_t start = out.rfind(' ', at == std::string::npos ? 0 : at - 1);
  if (at == std::string::npos || start == std::string::npos) {
    std::cerr << out;
    return 0;
  }
  return std::atof(out.substr(start + 1, at - start - 1).c_str());
}

}  // namespace

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_library_speed DIR [--rounds N]\n";
    return 1;
  }
  const fs::path dir = argv[1];
  int rounds = 5;
  const double budget = 0.5;  // seconds of timing per call of time_kernel, as kriek run's
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--rounds") rounds = std::max(1, std::atoi(value.c_str()));
    else {
      std::cerr << "bench_library_speed: unknown flag " << flag << "\n";
      return 1;
    }
  }
  const std::string manifest = read(dir / "manifest.json");
  const std::string name = field(manifest, "name", 0), table = field(manifest, "table", 0);
  if (name.empty() || table.empty()) {
    std::cerr << "bench_library_speed: " << (dir / "manifest.json").string()
              << " names no library or no DP table (build the library with a table)\n";
    return 1;
  }
  std::vector<Kernel> kernels;
  for (std::size_t at = manifest.find("{\"symbol\""); at != std::string::npos;
       at = manifest.find("{\"symbol\"", at + 1)) {
    kernels.push_back(Kernel{field(manifest, "symbol", at), field(manifest, "spec", at), field(manifest, "backend", at)});
  }
  const fs::path library = dir / "lib" / ("lib" + name + ".so");
  const Target& target = host_target();
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::cout << "library " << library.string() << ", " << kernels.size() << " kernels; load " << load_average() << "\n";
  std::printf("%-28s %8s %12s %12s %8s\n", "kernel", "backend", "run GFLOP/s", "lib GFLOP/s", "lib/run");
  double log_sum = 0, lowest = 1e9;
  for (const Kernel& k : kernels) {
    const Spec spec = parse_spec(k.spec, target);
    const codegen::LoadedKernel loaded = codegen::LoadedKernel::load(library, k.symbol);
    if (!codegen::verify(loaded, spec, 1).ok()) {
      std::cout << k.symbol << ": WRONG result\n";
      return 3;
    }
    std::vector<double> run, lib;
    for (int r = 0; r < rounds; ++r) {
      run.push_back(kriek_run_gflops(k, table));
      lib.push_back(codegen::time_kernel(loaded, spec, budget).gflops);
    }
    const double ratio = median(lib) / median(run);
    log_sum += std::log(ratio);
    lowest = std::min(lowest, ratio);
    std::printf("%-28s %8s %12.2f %12.2f %8.3f\n", k.symbol.c_str(), k.backend.c_str(), median(run), median(lib),
                ratio);
  }
  std::printf("\nlibrary / kriek run: geometric mean %.3f, lowest %.3f over %zu kernels (medians of %d rounds)\n",
              std::exp(log_sum / static_cast<double>(kernels.size())), lowest, kernels.size(), rounds);
  std::cout << "load at the end " << load_average() << "\n";
  return 0;
}

int main(int argc, char** argv) { return bench::guarded_main("bench_library_speed", [&] { return run(argc, argv); }); }
