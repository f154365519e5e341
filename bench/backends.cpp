// The two code generators side by side: for each Spec of the suites (matmul, elementwise, reductions, conv,
// batched), the DP's best Impl is compiled by the C backend ($CC, dlopen) and JIT-compiled by the LLVM backend,
// both verified, then timed in alternation (C, LLVM, C, LLVM, ...: the machine's load drifts alike for both); the
// ratio LLVM / C of the median GFLOP/s per Spec, their geometric mean and the lowest, per suite and over all. Then
// latency: frontier entries of the Specs compiled one by one by each backend (C: write, compile, load; LLVM:
// lower, O3, codegen, link), the median per kernel.
//
//   build/bench/bench_backends [--suites matmul,elementwise,reductions,conv,batched] [--specs 'TEXT|TEXT']
//                              [--rounds N] [--latency-kernels N] [--threads N] [--table DIR]
//
// --specs replaces the suites by Specs in the spec text, separated by '|' (e.g. 'matmul 512x512x512 f32').
// --table reads the Specs' frontiers from a DP table and saves what was searched there (the next run searches
// nothing); without it every Spec is searched from scratch.
//
// Parallel kernels run on 1 thread unless --threads says more: the two backends' runtimes (OpenMP for C, TBB for
// LLVM) share this process, and on a busy 2-core machine one's spinning workers starve the other's barriers (C at
// 128^3 fell from 52 to 0.1 GFLOP/s after LLVM kernels had run); compare thread scaling in separate processes.
//
// Each Spec is searched from scratch (256^3 takes ~7 s and ~0.5 GiB; the batched 16x40x64x40 passed 3 GiB).
//
// Build it with `cmake --build build --target bench_backends`. Never part of the tests.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/guarded_main.h"
#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "codegen/compile.h"
#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/measure.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The suites: Specs the search solves in seconds from scratch (no DP table here).
const std::vector<std::pair<std::string, std::vector<std::string>>> kSuites = {
    {"matmul",
     {"matmul 64x64x64 f32", "matmul 128x128x128 f32", "matmul 256x256x256 f32", "matmul 82x99x63 f32",
      "matmul 99x36x67 f32"}},
    {"elementwise",
     {"relu 256x256 f32", "add 256x256 f32", "add 256x256 1x256 f32", "mul 128x512 f32",
      "compose[add, relu] 256x256 256x256 f32", "relu 99x37 f32"}},
    {"reductions",
     {"reducesum[axis=1] 256x256 f32", "reducesum[axis=0] 256x256 f32", "matmul 1x256x256 f32",
      "matmul 256x256x1 f32", "reducesum[axis=1] 67x45 f32"}},
    {"conv",
     {"conv 1x10x10x16 3x3x16x16 f32", "conv[pad=1] 1x8x8x16 3x3x16x16 f32", "conv 1x12x12x32 1x1x32x32 f32",
      "conv 30x30 3x3x8 f32"}},
    {"batched", {"matmul 4x64x64x64 f32", "matmul 8x32x32x32 f32", "matmul 2x48x64x40 f32"}},
};

}  // namespace

/// The geometric mean and lowest of ratios.
struct Ratios {
  double log_sum = 0, lowest = 1e9;
  int count = 0;
  void add(double r) {
    log_sum += std::log(r);
    lowest = std::min(lowest, r);
    ++count;
  }
  void print(const std::string& what) const {
    if (count == 0) return;
    std::printf("%-12s LLVM / C: geometric mean %.3f, lowest %.3f over %d Specs\n", what.c_str(),
                std::exp(log_sum / count), lowest, count);
  }
};

int run(int argc, char** argv) {
  std::string suites = "matmul,elementwise,reductions,conv,batched", specs, table_path;
  int rounds = 5;
  std::size_t latency_kernels = 40;
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--suites") suites = value;
    else if (flag == "--specs") specs = value;
    else if (flag == "--table") table_path = value;
    else if (flag == "--threads") threads = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--rounds") rounds = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--latency-kernels") latency_kernels = static_cast<std::size_t>(std::max(1, std::atoi(value.c_str())));
    else {
      std::cerr << "bench_backends: unknown flag " << flag << "\n";
      return 1;
    }
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> chosen;
  if (!specs.empty()) {
    chosen.emplace_back("specs", bench::split(specs, '|'));
  } else {
    for (const std::string& name : bench::split(suites, ',')) {
      const auto it = std::find_if(kSuites.begin(), kSuites.end(), [&](const auto& s) { return s.first == name; });
      if (it == kSuites.end()) {
        std::cerr << "bench_backends: unknown suite " << name << "\n";
        return 1;
      }
      chosen.push_back(*it);
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const Target& target = host_target();
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  std::optional<Table> table;
  if (!table_path.empty()) table = open_table_if_exists(table_path, target, synth.model());
  if (table) synth.set_table(&*table);
  const std::filesystem::path dir = make_temp_dir();
  std::cout << "threads per parallel kernel: " << threads << "\n";
  std::cout << "target " << target.name << " (" << isa_name(target.isa) << "), LLVM CPU " << llvm_cpu(target)
            << "; load " << bench::load_average() << "\n\n";
  std::printf("%-40s %10s %10s %8s %9s %9s\n", "spec", "C GFLOP/s", "LLVM", "LLVM/C", "C build", "LLVM JIT");

  Ratios all;
  std::vector<std::pair<std::string, Ratios>> per_suite;
  std::vector<std::pair<Spec, std::size_t>> frontier_sizes;
  for (const auto& [suite, texts] : chosen) {
    Ratios ratios;
    for (const std::string& text : texts) {
      const Spec spec = parse_spec(text, target);
      const Frontier& f = synth.solve(spec);
      frontier_sizes.emplace_back(spec, f.entries.size());
      const ImplPtr impl = *synth.best(spec, default_limits(target));
      auto start = Clock::now();
      const CSource c = emit_c(impl, target, "c" + std::to_string(frontier_sizes.size()));
      const LoadedKernel ck = compile_and_load(c, target, dir);
      const double c_build = since(start);
      const JitKernel lk = jit_compile(impl, target);
      ck.set_threads(threads);
      lk.kernel.set_threads(threads);
      if (!verify(ck, spec, 1).ok() || !verify(lk.kernel, spec, 1).ok()) {
        std::cout << spec_text(spec) << ": WRONG result\n";
        return 3;
      }
      std::vector<double> cg, lg;
      for (int r = 0; r < rounds; ++r) {
        cg.push_back(time_kernel(ck, spec, 0.2).gflops);
        lg.push_back(time_kernel(lk.kernel, spec, 0.2).gflops);
      }
      const double ratio = bench::median(lg) / bench::median(cg);
      ratios.add(ratio);
      all.add(ratio);
      std::printf("%-40s %10.2f %10.2f %8.3f %7.0fms %7.1fms\n", text.c_str(), bench::median(cg),
                  bench::median(lg), ratio, c_build * 1e3, lk.jit_seconds * 1e3);
    }
    per_suite.emplace_back(suite, ratios);
  }
  if (!table_path.empty()) {
    save_table(table_path, target, synth.model(), [&](const FrontierVisitor& v) { synth.for_each_encoded(v); }, true,
               table ? &*table : nullptr);
  }
  std::printf("\n");
  for (const auto& [suite, ratios] : per_suite) ratios.print(suite);
  all.print("all");
  std::printf("(medians of %d alternating rounds)\n", rounds);
  // Latency: frontier entries of the Specs, one kernel at a time through each backend.
  std::vector<double> c_times, jit_times;
  for (const auto& [spec, entries] : frontier_sizes) {
    const std::size_t step = std::max<std::size_t>(1, entries / std::max<std::size_t>(1, latency_kernels / frontier_sizes.size()));
    for (std::size_t e = 0; e < entries; e += step) {
      const ImplPtr impl = synth.reconstruct(spec, e);
      const std::string name = "lat" + std::to_string(c_times.size());
      auto start = Clock::now();
      const LoadedKernel ck = compile_and_load(emit_c(impl, target, name), target, dir);
      c_times.push_back(since(start));
      jit_times.push_back(jit_compile(impl, target, name).jit_seconds);
    }
  }
  std::printf("latency over %zu kernels: C (emit, cc -O3, dlopen) median %.1f ms; LLVM JIT median %.1f ms (%.1fx)\n",
              c_times.size(), bench::median(c_times) * 1e3, bench::median(jit_times) * 1e3,
              bench::median(c_times) / bench::median(jit_times));
  std::cout << "load at the end " << bench::load_average() << "\n";
  std::filesystem::remove_all(dir);
  return 0;
}

int main(int argc, char** argv) { return bench::guarded_main("bench_backends", [&] { return run(argc, argv); }); }
