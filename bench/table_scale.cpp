// The DP table at scale (issue 15's goals): builds a table of N synthetic Specs (default 2 million) with
// plausible frontiers, then runs the kriek program against it and reports wall time and peak RSS of a synth
// that searches and saves, of a cached synth (median of 5), of an uncached synth against the same synth without
// a table, the bytes a save writes, and the warm lookup latency in an open table. With --real it also reports
// the bytes per Spec of real search tables (matmul 64^3, 256^3 and a small conv, each in a fresh table).
// Usage: bench_table_scale [--entries N] [--dir DIR] [--real] [--keep]
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>

#include "cache/synthetic_table.h"
#include "cache/table_tools.h"
#include "spec/error.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

extern char** environ;

using namespace kriek;
using Clock = std::chrono::steady_clock;

namespace {

struct Run {
  double seconds = 0;
  double rss_mib = 0;
  std::string out;
};

/// Runs `command` under /usr/bin/time (a small process, so the peak RSS it reports is the command's own; a
/// child spawned from this process would inherit its high-water mark), stdout and stderr to a file.
Run run(const std::string& command, const std::filesystem::path& dir) {
  const std::filesystem::path out_file = dir / "bench_out.txt";
  const std::string shell = "exec /usr/bin/time -f 'maxrss %M' " + command + " > " + out_file.string() + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", shell.c_str(), nullptr};
  const auto start = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    user_error("cannot run ", command);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Run r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::ifstream in(out_file);
  r.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (const std::size_t at = r.out.rfind("maxrss "); at != std::string::npos) {
    r.rss_mib = std::atof(r.out.c_str() + at + 7) / 1024.0;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) user_error("'", command, "' failed: ", r.out);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

/// The seconds of the search ("search: ... N.NN s, ...") in `out`.
double search_seconds(const std::string& out) {
  const std::size_t at = out.find(" actions tried, ");
  return at == std::string::npos ? 0 : std::atof(out.c_str() + at + 16);
}

/// The line of `out` that starts with `prefix`.
std::string line_of(const std::string& out, const std::string& prefix) {
  const std::size_t at = out.find(prefix);
  if (at == std::string::npos) return "(no '" + prefix + "' line)";
  return out.substr(at, out.find('\n', at) - at);
}

std::string synth(const std::string& spec, const std::string& table_flags) {
  return std::string(KRIEK_BINARY) + " synth '" + spec + "' --threads 2 " + table_flags;
}

void real_tables(const std::filesystem::path& dir) {
  for (const std::string spec : {"matmul 64x64x64 f32", "matmul 256x256x256 f32", "conv 1x10x10x8 3x3x8x8 f32"}) {
    const std::filesystem::path path = dir / "real.table";
    std::filesystem::remove_all(path);
    const Run r = run(synth(spec, "--table " + path.string()), dir);
    const Table t = Table::open(path);
    const TableStats s = table_stats(t);
    std::cout << "real table of " << spec << ": " << s.entries << " specs, " << s.frontier_entries
              << " frontier entries, " << s.file_bytes << " bytes, " << s.bytes_per_entry() << " bytes per spec ("
              << static_cast<double>(s.file_bytes) / static_cast<double>(s.frontier_entries)
              << " per frontier entry); search " << r.seconds << " s\n";
  }
}

/// CPU seconds of the calling thread (the machine is shared: wall time would count other processes' work).
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// Where an uncached synthesis spends its time on the table, in this process in CPU time (medians of 3): the
/// search of matmul 64^3 (for scale), the lookups its search makes in a copy of the synthetic table (one per Spec
/// solved, all misses), and the save's two halves: encoding the solved Specs and committing the segment.
void save_overhead(const std::filesystem::path& synthetic, const std::filesystem::path& dir) {
  const Target& target = host_target();
  const CostModel model = CostModel::for_target(target);
  const Spec spec = parse_spec("matmul 64x64x64 f32", target);
  std::vector<double> search, lookups, encode, commit;
  std::uint64_t solved = 0;
  for (int round = 0; round < 3; ++round) {
    const std::filesystem::path copy = dir / "copy.table";
    std::filesystem::remove_all(copy);
    std::filesystem::create_directories(copy);
    for (const auto& file : std::filesystem::directory_iterator(synthetic)) {
      std::filesystem::create_hard_link(file.path(), copy / file.path().filename());
    }
    Synthesizer synth(target, model, {1});
    double start = thread_seconds();
    synth.solve(spec);
    search.push_back((thread_seconds() - start) * 1e3);
    const Table table = Table::open(copy, target, model);
    std::vector<Spec> specs;
    synth.for_each_encoded([&](const Spec& s, std::string_view) { specs.push_back(s); });
    start = thread_seconds();
    for (const Spec& s : specs) {
      if (table.lookup(s)) user_error("a Spec of matmul 64^3 is in the synthetic table");
    }
    lookups.push_back((thread_seconds() - start) * 1e3);
    start = thread_seconds();
    TableWriter writer(copy, target, model);
    writer.missed_in(table);  // as kriek synth does: the search looked each of them up
    synth.for_each_encoded([&](const Spec& s, std::string_view f) { writer.add(s, f); });
    encode.push_back((thread_seconds() - start) * 1e3);
    start = thread_seconds();
    solved = writer.commit().entries;
    commit.push_back((thread_seconds() - start) * 1e3);
  }
  const double overhead = median(lookups) + median(encode) + median(commit);
  std::cout << "in process, CPU time, matmul 64^3 (" << solved << " new specs, search " << median(search)
            << " ms), medians of 3: lookups " << median(lookups) << " ms, encode " << median(encode)
            << " ms, commit " << median(commit) << " ms; table overhead " << overhead << " ms, "
            << overhead * 1e3 / static_cast<double>(solved) << " us per spec\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t entries = 2'000'000;
  bool real = false, keep = false;
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "kriek-bench-table-scale";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--entries") && i + 1 < argc) entries = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--real")) real = true;
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else {
      std::cerr << "usage: bench_table_scale [--entries N] [--dir DIR] [--real] [--keep]\n";
      return 1;
    }
  }
  try {
    std::filesystem::create_directories(dir);
    const std::filesystem::path path = dir / "scale.table";
    std::vector<Spec> probes;
    if (!keep || !std::filesystem::exists(path)) {
      std::filesystem::remove_all(path);
      const auto start = Clock::now();
      TableWriter writer(path, host_target(), CostModel::for_target(host_target()));
      std::mt19937_64 rng(2026);
      for (std::uint64_t i = 0; i < entries; ++i) {
        const Spec spec = synthetic_spec(rng, i);  // before the frontier: the probes replay this sequence
        writer.add(spec, synthetic_frontier(rng));
      }
      writer.commit(false);
      std::cout << "built " << entries << " synthetic specs in "
                << std::chrono::duration<double>(Clock::now() - start).count() << " s\n";
    }
    {
      std::mt19937_64 rng(2026);
      for (std::uint64_t i = 0; i < entries; ++i) {
        Spec s = synthetic_spec(rng, i);
        (void)synthetic_frontier(rng);
        if (i % std::max<std::uint64_t>(1, entries / 2000) == 0) probes.push_back(std::move(s));
      }
    }
    save_overhead(path, dir);
    const auto table_bytes = [&] { return Table::open(path).file_bytes(); };
    const std::uint64_t synthetic_bytes = table_bytes();
    std::cout << "table: " << Table::open(path).size() << " specs, " << synthetic_bytes << " bytes\n";

    const std::string flags = "--table " + path.string();
    const Run cold = run(synth("matmul 64x64x64 f32", flags), dir);
    std::cout << "synth matmul 64^3 into it (search and save): " << cold.seconds << " s, " << cold.rss_mib
              << " MiB RSS; " << line_of(cold.out, "table:") << "; table grew by " << table_bytes() - synthetic_bytes
              << " bytes\n";
    std::vector<double> wall, rss;
    for (int i = 0; i < 5; ++i) {
      const Run warm = run(synth("matmul 64x64x64 f32", flags), dir);
      wall.push_back(warm.seconds * 1e3);
      rss.push_back(warm.rss_mib);
    }
    std::cout << "cached synth matmul 64^3: median " << median(wall) << " ms, " << median(rss) << " MiB RSS\n";

    // The table's cost outside the search (open, save, rebuilding the Impl): wall time minus the search time
    // kriek reports, with the table and without.
    std::vector<double> with_table, without;
    for (int i = 0; i < 3; ++i) {
      const std::string spec = "matmul 64x64x" + std::to_string(40 + 8 * i) + " f32";
      const Run none = run(synth(spec, "--no-table"), dir);
      const Run table = run(synth(spec, flags), dir);
      without.push_back((none.seconds - search_seconds(none.out)) * 1e3);
      with_table.push_back((table.seconds - search_seconds(table.out)) * 1e3);
      std::cout << "uncached synth " << spec << " with the table: " << table.seconds * 1e3 << " ms, search "
                << search_seconds(table.out) * 1e3 << " ms, " << table.rss_mib << " MiB RSS; "
                << line_of(table.out, "table:") << "\n  without: " << none.seconds * 1e3 << " ms, search "
                << search_seconds(none.out) * 1e3 << " ms, " << none.rss_mib << " MiB RSS\n";
    }
    std::cout << "uncached synth, wall minus search: median " << median(with_table) << " ms with the table, "
              << median(without) << " ms without\n";

    const Table table = Table::open(path);
    std::vector<double> lookup, open_lookup;
    std::mt19937_64 pick(7);
    for (int q = 0; q < 4000; ++q) {
      const Spec& s = probes[pick() % probes.size()];
      auto start = Clock::now();
      const bool found = table.lookup(s).has_value();
      lookup.push_back(std::chrono::duration<double>(Clock::now() - start).count() * 1e6);
      start = Clock::now();
      const bool found_again = Table::open(path).lookup(s).has_value();
      open_lookup.push_back(std::chrono::duration<double>(Clock::now() - start).count() * 1e6);
      if (!found || !found_again) user_error("a probe Spec was not found");
    }
    std::cout << "warm lookup in an open table of " << table.segments().size() << " segments: median "
              << percentile(lookup, 0.5) << " us, p90 " << percentile(lookup, 0.9) << " us, max "
              << percentile(lookup, 1.0) << " us; including the open: median " << percentile(open_lookup, 0.5)
              << " us, p90 " << percentile(open_lookup, 0.9) << " us\n";
    if (real) real_tables(dir);
    if (!keep) std::filesystem::remove_all(dir);
    return 0;
  } catch (const UserError& e) {
    std::cerr << "bench_table_scale: error: " << e.what() << "\n";
    return 1;
  }
}
