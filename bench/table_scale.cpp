// The DP table at scale (issue 15's goals): builds a table of N synthetic Specs (default 2 million) with
// plausible frontiers, then, each phase from a fresh copy of it: where an uncached synthesis spends its time on
// the table, in process (save); an uncached `kriek synth` end to end against the same with --no-table, wall and
// CPU time (uncached); a synth that searches and saves, then cached synths, wall time and peak RSS (cached); the
// warm lookup latency in an open table (lookup). With --real it also reports the bytes per Spec of real search
// tables (matmul 64^3, 256^3 and a small conv, each in a fresh table).
// Usage: bench_table_scale [--entries N] [--dir DIR] [--keep] [--only PHASE] [--runs N] [--spec SPEC] [--real]
// (--keep keeps DIR and reuses its synthetic table; --runs and --spec are the uncached phase's).
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

#include "bench/bench_util.h"
#include "cache/synthetic_table.h"
#include "cache/table_dir.h"
#include "cache/table_tools.h"
#include "spec/error.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

extern char** environ;

using namespace kriek;
using Clock = std::chrono::steady_clock;

namespace {

using bench::load_average;
using bench::median;

struct Run {
  double seconds = 0;
  double cpu_seconds = 0;  ///< user + sys
  double rss_mib = 0;
  std::string out;
};

/// Runs `command` under /usr/bin/time (a small process, so the peak RSS it reports is the command's own; a
/// child spawned from this process would inherit its high-water mark; and its CPU time), stdout and stderr to a
/// file.
Run run(const std::string& command, const std::filesystem::path& dir) {
  const std::filesystem::path out_file = dir / "bench_out.txt";
  const std::string shell = "exec /usr/bin/time -f 'maxrss %M cpu %U %S' " + command + " > " + out_file.string() + " 2>&1";
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
    char* end = nullptr;
    r.rss_mib = std::strtod(r.out.c_str() + at + 7, &end) / 1024.0;
    if (!std::strncmp(end, " cpu ", 5)) {
      const double user = std::strtod(end + 5, &end);
      r.cpu_seconds = user + std::strtod(end, nullptr);
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) user_error("'", command, "' failed: ", r.out);
  return r;
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

/// CPU seconds of this process, every thread (the machine is shared: wall time would count other processes' work;
/// the save compresses on several threads).
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double wall_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

/// A fresh table at `copy` holding the segment files `segments` (hard links: segments are never changed in
/// place), so every phase starts from the synthetic table as it was built.
void copy_table(const std::vector<std::filesystem::path>& segments, const std::filesystem::path& copy) {
  std::filesystem::remove_all(copy);
  create_table_dir(copy);
  for (const auto& file : segments) std::filesystem::create_hard_link(file, copy / file.filename());
}

/// Where an uncached synthesis spends its time on the table, in this process (medians and least of 9 on one
/// search of matmul 64^3): the lookups its search makes in a copy of the synthetic table (one per Spec solved, all
/// misses), and the save's two halves: encoding the solved Specs (CPU time) and committing the segment (CPU time,
/// and wall time, which includes the fsyncs).
void save_overhead(const std::vector<std::filesystem::path>& synthetic, const std::filesystem::path& dir) {
  const Target& target = host_target();
  const CostModel model = CostModel::for_target(target);
  const Spec spec = parse_spec("matmul 64x64x64 f32", target);
  Synthesizer synth(target, model, {1});
  double start = cpu_seconds();
  synth.solve(spec);
  const double search = (cpu_seconds() - start) * 1e3;
  std::vector<Spec> specs;
  synth.for_each_encoded([&](const Spec& s, const auto&) { specs.push_back(s); });
  std::vector<double> lookups, encode, commit, commit_wall;
  std::uint64_t solved = 0;
  const int rounds = 9;
  for (int round = 0; round < rounds; ++round) {
    const std::filesystem::path copy = dir / "copy.table";
    copy_table(synthetic, copy);
    const Table table = Table::open(copy, target, model);
    start = cpu_seconds();
    for (const Spec& s : specs) {
      if (table.lookup(s)) user_error("a Spec of matmul 64^3 is in the synthetic table");
    }
    lookups.push_back((cpu_seconds() - start) * 1e3);
    start = cpu_seconds();
    TableWriter writer(copy, target, model);
    writer.missed_in(table);  // as kriek synth does: the search looked each of them up
    synth.for_each_encoded([&](const Spec& s, const auto& f) { writer.add(s, f); });
    encode.push_back((cpu_seconds() - start) * 1e3);
    start = cpu_seconds();
    const double wall = wall_seconds();
    solved = writer.commit().entries;
    commit.push_back((cpu_seconds() - start) * 1e3);
    commit_wall.push_back((wall_seconds() - wall) * 1e3);
  }
  const double overhead = median(lookups) + median(encode) + median(commit);
  const auto least = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  std::cout << "in process, CPU time, matmul 64^3 (" << solved << " new specs, search " << search << " ms), medians of "
            << rounds << ": lookups " << median(lookups) << " ms, encode " << median(encode) << " ms, commit "
            << median(commit) << " ms (wall " << median(commit_wall) << " ms); table overhead " << overhead << " ms, "
            << overhead * 1e3 / static_cast<double>(solved) << " us per spec; least of each: "
            << least(lookups) + least(encode) + least(commit) << " ms (" << least(lookups) << ", " << least(encode)
            << ", " << least(commit) << ")\n";
}

/// An uncached `kriek synth SPEC` end to end, as a user runs it: with a fresh copy of the synthetic table (none
/// of the search's Specs in it: every lookup misses, everything solved is saved) against the same synth with
/// --no-table, interleaved, `runs` of each. Reports medians of wall time, CPU time (user + sys) and the search
/// time kriek prints, and the medians of the pairwise differences: the table's cost (open, lookups in the
/// search, save).
void uncached(const std::vector<std::filesystem::path>& synthetic, const std::filesystem::path& dir,
              const std::string& spec, int runs) {
  const std::filesystem::path copy = dir / "uncached.table";
  std::vector<double> wall[2], cpu[2], search[2], d_wall, d_cpu, d_rest;
  std::string line;
  for (int i = 0; i < runs; ++i) {
    copy_table(synthetic, copy);
    const Run none = run(synth(spec, "--no-table"), dir);
    const Run table = run(synth(spec, "--table " + copy.string()), dir);
    line = line_of(table.out, "table:");
    for (int t = 0; t < 2; ++t) {
      const Run& r = t ? table : none;
      wall[t].push_back(r.seconds * 1e3);
      cpu[t].push_back(r.cpu_seconds * 1e3);
      search[t].push_back(search_seconds(r.out) * 1e3);
    }
    d_wall.push_back((table.seconds - none.seconds) * 1e3);
    d_cpu.push_back((table.cpu_seconds - none.cpu_seconds) * 1e3);
    d_rest.push_back(((table.seconds - search_seconds(table.out)) - (none.seconds - search_seconds(none.out))) * 1e3);
  }
  std::cout << "uncached synth '" << spec << "', medians of " << runs << " (ms): with the table: wall "
            << median(wall[1]) << ", CPU " << median(cpu[1]) << ", search " << median(search[1])
            << "; with --no-table: wall " << median(wall[0]) << ", CPU " << median(cpu[0]) << ", search "
            << median(search[0]) << "\n  the table's cost, medians of the differences: wall " << median(d_wall)
            << " ms, CPU " << median(d_cpu) << " ms, wall outside the search " << median(d_rest) << " ms\n  "
            << line << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t entries = 2'000'000;
  bool real = false, keep = false;
  int runs = 5;
  std::string only, uncached_spec = "matmul 64x64x32 f32";
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "kriek-bench-table-scale";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--entries") && i + 1 < argc) entries = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--spec") && i + 1 < argc) uncached_spec = argv[++i];
    else if (!std::strcmp(argv[i], "--real")) real = true;
    else if (!std::strcmp(argv[i], "--keep")) keep = true;
    else {
      std::cerr << "usage: bench_table_scale [--entries N] [--dir DIR] [--keep] [--only save|uncached|cached|lookup]"
                   " [--runs N] [--spec SPEC] [--real]\n";
      return 1;
    }
  }
  const auto phase = [&](const char* name) { return only.empty() || only == name; };
  try {
    std::filesystem::create_directories(dir);
    const std::filesystem::path synthetic = dir / "synthetic.table";
    if (!keep || !std::filesystem::exists(synthetic)) {
      std::filesystem::remove_all(synthetic);
      const auto start = Clock::now();
      TableWriter writer(synthetic, host_target(), CostModel::for_target(host_target()));
      std::mt19937_64 rng(2026);
      for (std::uint64_t i = 0; i < entries; ++i) {
        const Spec spec = synthetic_spec(rng, i);  // before the frontier: the probes replay this sequence
        writer.add(spec, synthetic_frontier(rng));
      }
      writer.commit(false);
      std::cout << "built " << entries << " synthetic specs in "
                << std::chrono::duration<double>(Clock::now() - start).count() << " s\n";
    }
    const std::vector<std::filesystem::path> segments = list_segments(synthetic);
    const std::uint64_t synthetic_bytes = Table::open(synthetic).file_bytes();
    std::cout << "table: " << Table::open(synthetic).size() << " specs, " << synthetic_bytes << " bytes; load "
              << load_average() << "\n";
    if (phase("save")) save_overhead(segments, dir);
    if (phase("uncached")) uncached(segments, dir, uncached_spec, runs);

    const std::filesystem::path path = dir / "scale.table";
    copy_table(segments, path);
    const std::string flags = "--table " + path.string();
    if (phase("cached")) {
      const Run cold = run(synth("matmul 64x64x64 f32", flags), dir);
      std::cout << "synth matmul 64^3 into it (search and save): " << cold.seconds << " s, " << cold.rss_mib
                << " MiB RSS; " << line_of(cold.out, "table:") << "; table grew by "
                << Table::open(path).file_bytes() - synthetic_bytes << " bytes\n";
      std::vector<double> wall, rss;
      for (int i = 0; i < 5; ++i) {
        const Run warm = run(synth("matmul 64x64x64 f32", flags), dir);
        wall.push_back(warm.seconds * 1e3);
        rss.push_back(warm.rss_mib);
      }
      std::cout << "cached synth matmul 64^3: median " << median(wall) << " ms, " << median(rss) << " MiB RSS\n";
    }

    if (phase("lookup")) {
      std::vector<Spec> probes;
      std::mt19937_64 rng(2026);
      for (std::uint64_t i = 0; i < entries; ++i) {
        Spec s = synthetic_spec(rng, i);
        (void)synthetic_frontier(rng);
        if (i % std::max<std::uint64_t>(1, entries / 2000) == 0) probes.push_back(std::move(s));
      }
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
    }
    if (real) real_tables(dir);
    std::cout << "load " << load_average() << "\n";
    if (!keep) std::filesystem::remove_all(dir);
    return 0;
  } catch (const UserError& e) {
    std::cerr << "bench_table_scale: error: " << e.what() << "\n";
    return 1;
  }
}
