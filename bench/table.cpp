// DP table benchmark: builds a synthetic table of N distinct Specs (default one million) with plausible
// frontiers, then reports the build time, bytes per Spec, the median and 90th-percentile time of one warm query
// including opening the file, the time of a lookup in an open table, and (with --synth) the time a warm
// synthesis of matmul 256x256x256 saves over a cold one. Usage: bench_table [--entries N] [--queries Q]
// [--dir DIR] [--synth] [--synth-size S]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cache/table_tools.h"
#include "spec/error.h"
#include "synth/synthesizer.h"
#include "cache/synthetic_table.h"

using namespace kriek;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

Spec matmul_spec(std::int64_t n) {
  TensorSpec t;
  t.shape = {n, n};
  return Spec{Matmul{}, {t, t, t}, false};
}

void bench_synth(const std::filesystem::path& dir, std::int64_t n) {
  const Target& target = host_target();
  const CostModel model = CostModel::for_target(target);
  const Spec spec = matmul_spec(n);
  const auto path = dir / "synth.table";
  std::filesystem::remove_all(path);

  auto start = Clock::now();
  Synthesizer cold(target, model, {1});
  const std::optional<ImplPtr> cold_impl = cold.best(spec, {});
  const double cold_s = seconds_since(start);
  start = Clock::now();
  const WriteSummary w = save_table(path, target, model, [&](const FrontierVisitor& v) { cold.for_each_encoded(v); });
  const double save_s = seconds_since(start);

  start = Clock::now();
  const Table table = Table::open(path, target, model);
  Synthesizer warm(target, model, {1});
  warm.set_table(&table);
  const std::optional<ImplPtr> warm_impl = warm.best(spec, {});
  const double warm_s = seconds_since(start);
  std::cout << "synth matmul " << n << "^3 (1 thread): cold " << cold_s << " s (" << cold.stats().specs_solved
            << " specs), save " << save_s << " s (" << w.entries << " specs, " << w.bytes << " bytes), warm "
            << warm_s * 1e3 << " ms (" << warm.stats().specs_solved << " specs searched, "
            << warm.stats().specs_loaded << " loaded), saved " << cold_s - warm_s << " s, same best Impl: "
            << (cold_impl && warm_impl && (*cold_impl)->spec == (*warm_impl)->spec ? "yes" : "no") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t entries = 1'000'000;
  int queries = 2000;
  bool synth = false;
  std::int64_t synth_size = 256;
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "kriek-bench-table";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--entries") && i + 1 < argc) entries = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--queries") && i + 1 < argc) queries = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--synth")) synth = true;
    else if (!std::strcmp(argv[i], "--synth-size") && i + 1 < argc) synth_size = std::atoll(argv[++i]);
    else {
      std::cerr << "usage: bench_table [--entries N] [--queries Q] [--dir DIR] [--synth] [--synth-size S]\n";
      return 1;
    }
  }
  try {
    std::filesystem::create_directories(dir);
    const auto path = dir / "bench.table";
    std::filesystem::remove_all(path);
    std::vector<Spec> probes;
    auto start = Clock::now();
    {
      TableWriter writer(path, host_target(), CostModel::for_target(host_target()));
      std::mt19937_64 rng(2026);
      for (std::uint64_t i = 0; i < entries; ++i) {
        Spec s = synthetic_spec(rng, i);
        writer.add(s, synthetic_frontier(rng));
        if (i % std::max<std::uint64_t>(1, entries / 1000) == 0) probes.push_back(std::move(s));
      }
      writer.commit(false);
    }
    const double build_s = seconds_since(start);
    const auto bytes = Table::open(path).file_bytes();
    std::cout << "table of " << entries << " specs: built in " << build_s << " s, " << bytes << " bytes, "
              << static_cast<double>(bytes) / static_cast<double>(entries) << " bytes per spec\n";

    std::vector<double> open_and_query, query_only;
    std::mt19937_64 pick(7);
    const Table open_table = Table::open(path);
    for (int q = 0; q < queries; ++q) {
      const Spec& s = probes[pick() % probes.size()];
      start = Clock::now();
      const Table t = Table::open(path);
      const bool found = t.lookup(s).has_value();
      open_and_query.push_back(seconds_since(start) * 1e6);
      start = Clock::now();
      const bool found_again = open_table.lookup(s).has_value();
      query_only.push_back(seconds_since(start) * 1e6);
      if (!found || !found_again) user_error("a probe Spec was not found");
    }
    std::cout << "warm query including open (" << queries << " queries): median " << percentile(open_and_query, 0.5)
              << " us, p90 " << percentile(open_and_query, 0.9) << " us, max "
              << percentile(open_and_query, 1.0) << " us\n"
              << "lookup in an open table: median " << percentile(query_only, 0.5) << " us, p90 "
              << percentile(query_only, 0.9) << " us\n";
    start = Clock::now();
    const TableStats stats = table_stats(open_table);
    std::cout << "full scan (stats, every checksum): " << seconds_since(start) << " s, " << stats.frontier_entries
              << " frontier entries\n";
    if (synth) bench_synth(dir, synth_size);
    std::filesystem::remove_all(path);
    return 0;
  } catch (const UserError& e) {
    std::cerr << "bench_table: error: " << e.what() << "\n";
    return 1;
  }
}
