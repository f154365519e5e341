// The two code generators side by side: for each Spec of a matmul suite, the DP's best Impl is compiled by the C
// backend ($CC, dlopen) and JIT-compiled by the LLVM backend, both verified, then timed in alternation (C, LLVM,
// C, LLVM, ...: the machine's load drifts alike for both); the ratio LLVM / C of the median GFLOP/s per Spec, their
// geometric mean and the lowest. Then latency: every frontier entry of the suite's smaller Specs compiled one by
// one by each backend (C: write, compile, load; LLVM: lower, O3, codegen, link), the median per kernel.
//
//   build/bench/bench_backends [--sizes 64,128,82x99x63,4x64x64x64] [--rounds N] [--latency-kernels N] [--threads N]
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
#include <sstream>
#include <string>
#include <vector>

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

/// "64" -> "matmul 64x64x64 f32"; "82x99x63" and "4x64x64x64" as they are.
std::string spec_text_of(const std::string& size) {
  const std::string shape = size.find('x') == std::string::npos ? size + "x" + size + "x" + size : size;
  return "matmul " + shape + " f32";
}

std::string uptime() {
  FILE* f = std::fopen("/proc/loadavg", "r");
  char buffer[128] = {0};
  if (f) {
    if (!std::fgets(buffer, sizeof buffer, f)) buffer[0] = 0;
    std::fclose(f);
  }
  std::string s(buffer);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // Specs the search solves in seconds from scratch (no DP table here); larger ones take --sizes.
  std::string sizes = "64,128,256,82x99x63,99x36x67,4x64x64x64";
  int rounds = 5;
  std::size_t latency_kernels = 40;
  int threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--threads") threads = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--rounds") rounds = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--latency-kernels") latency_kernels = static_cast<std::size_t>(std::max(1, std::atoi(value.c_str())));
    else {
      std::cerr << "bench_backends: unknown flag " << flag << "\n";
      return 1;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const Target& target = host_target();
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  const std::filesystem::path dir = make_temp_dir();
  std::cout << "threads per parallel kernel: " << threads << "\n";
  std::cout << "target " << target.name << " (" << isa_name(target.isa) << "), LLVM CPU " << llvm_cpu(target)
            << "; load " << uptime() << "\n\n";
  std::printf("%-24s %10s %10s %8s %9s %9s\n", "spec", "C GFLOP/s", "LLVM", "LLVM/C", "C build", "LLVM JIT");

  double log_sum = 0, lowest = 1e9;
  int count = 0;
  std::vector<std::pair<Spec, std::size_t>> frontier_sizes;
  for (const std::string& size : split(sizes)) {
    const Spec spec = parse_spec(spec_text_of(size), target);
    const Frontier& f = synth.solve(spec);
    frontier_sizes.emplace_back(spec, f.entries.size());
    const ImplPtr impl = *synth.best(spec, capacities(target));
    auto start = Clock::now();
    const CSource c = emit_c(impl, target);
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
    const double ratio = median(lg) / median(cg);
    log_sum += std::log(ratio);
    lowest = std::min(lowest, ratio);
    ++count;
    std::printf("%-24s %10.2f %10.2f %8.3f %7.0fms %7.1fms\n", spec_text_of(size).substr(7).c_str(), median(cg),
                median(lg), ratio, c_build * 1e3, lk.jit_seconds * 1e3);
  }
  std::printf("\nLLVM / C: geometric mean %.3f, lowest %.3f over %d Specs (medians of %d alternating rounds)\n",
              std::exp(log_sum / count), lowest, count, rounds);

  // Latency: frontier entries of the suite, one kernel at a time through each backend.
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
              c_times.size(), median(c_times) * 1e3, median(jit_times) * 1e3, median(c_times) / median(jit_times));
  std::cout << "load at the end " << uptime() << "\n";
  std::filesystem::remove_all(dir);
  return 0;
}
