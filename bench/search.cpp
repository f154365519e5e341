// Search benchmark: cold synthesis of one Spec for the host target with a given thread count, printing wall
// time, Specs solved, Specs/s, actions tried, the root frontier's size, the best cost and peak RSS as one line;
// --dump FILE also writes every solved Spec with its frontier size.
// scripts/bench_search.sh runs it over the benchmark suite, one process per run so peak RSS is per run.
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "spec/error.h"
#include "spec/host_memory.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

using namespace kriek;

namespace {

/// User and system CPU time of this process so far (a busy shared machine stretches wall time, less so this).
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec_text_arg = "matmul 256x256x256 f32";
  int threads = 1;
  bool prune = true;
  bool sparse = false;
  std::string dump;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--spec") && i + 1 < argc) {
      spec_text_arg = argv[++i];
    } else if (!std::strcmp(argv[i], "--no-prune")) {
      prune = false;
    } else if (!std::strcmp(argv[i], "--sparse")) {
      sparse = true;
    } else if (!std::strcmp(argv[i], "--dump") && i + 1 < argc) {
      dump = argv[++i];
    } else {
      std::cerr << "usage: bench_search [--spec TEXT] [--threads N] [--no-prune] [--sparse] [--dump FILE]\n";
      return 1;
    }
  }
  try {
    const Target& target = host_target();
    const Spec spec = parse_spec(spec_text_arg, target);
    const std::optional<SparseGrid> grid = sparse ? std::optional<SparseGrid>(SparseGrid{}) : std::nullopt;
    Synthesizer synth(target, CostModel::for_target(target),
                      SynthOptions{.threads = threads, .prune = prune, .sparse = grid});
    const auto start = std::chrono::steady_clock::now();
    const Frontier& f = synth.solve(spec);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto solved = synth.stats().specs_solved.load();
    std::cout << "spec=\"" << spec_text_arg << "\" threads=" << synth.threads() << " seconds=" << seconds
              << " specs=" << solved << " specs_per_s=" << static_cast<std::uint64_t>(solved / seconds)
              << " cpu_s=" << cpu_seconds() << " actions=" << synth.stats().actions_tried.load()
              << " folds_pruned=" << synth.stats().actions_pruned.load() << " frontier=" << f.entries.size()
              << " transplanted=" << synth.stats().specs_transplanted.load()
              << " best_cost=" << (f.empty() ? 0 : f.entries.front().cost)
              << " peak_rss_mib=" << peak_rss_bytes() / (1024 * 1024) << "\n";
    if (!dump.empty()) {
      // One line per solved Spec: its frontier size and long text (for studying the Spec space).
      std::ofstream out(dump);
      synth.for_each([&](const Spec& s, const Frontier& fr) { out << fr.entries.size() << '\t' << s << '\n'; });
    }
    return 0;
  } catch (const UserError& e) {
    std::cerr << "bench_search: error: " << e.what() << "\n";
    return 1;
  }
}
