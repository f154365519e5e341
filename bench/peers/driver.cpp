// The benchmark driver shared by every peer executable: parses the command line, makes identical inputs in
// every process (a fixed seed per problem), and for each runner prepares once (untimed), warms up, times the median
// of repeated runs, and checks C against a double-precision reference; then times each kriek variant against every
// peer in alternating rounds (paired.cpp). Prints a table; appends to CSVs.
#include "driver.h"

#include <malloc.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

namespace bench {

float* alloc_aligned(std::size_t n) {
  std::size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes ? bytes : 64));
  if (!p) { std::fprintf(stderr, "error: cannot allocate %zu bytes\n", bytes); std::exit(1); }
  return p;
}
void free_aligned(float* p) { std::free(p); }

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// CPU time (user + system) of all this process's threads so far, in ms.
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return 1e3 * (u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-3 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Busy time (user, nice, system, irq, softirq, steal) so far, in ms, of the CPUs this process may run on, from
// /proc/stat: it counts every process on those cores (other engineers' builds too) and the hypervisor's steal.
double allowed_cpus_busy_ms(int* ncpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::ifstream in("/proc/stat");
  double ticks = 0;
  *ncpus = 0;
  for (std::string line; std::getline(in, line);) {
    int cpu = -1;
    unsigned long long v[8] = {};  // user nice system idle iowait irq softirq steal
    if (std::sscanf(line.c_str(), "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
                    &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 || !CPU_ISSET(cpu, &set))
      continue;
    ticks += double(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
    ++*ncpus;
  }
  return ticks * 1e3 / double(sysconf(_SC_CLK_TCK));
}

}  // namespace

LoadWindow::LoadWindow() : wall0_(Clock::now()), cpu0_(cpu_ms()) {
  int ncpus = 0;
  busy0_ = allowed_cpus_busy_ms(&ncpus);
}

Load LoadWindow::read() const {
  Load l;
  l.wall_ms = ms_since(wall0_);
  l.own_cpu_ms = cpu_ms() - cpu0_;
  int ncpus = 0;
  const double busy = allowed_cpus_busy_ms(&ncpus) - busy0_;
  l.foreign = std::max(0.0, busy - l.own_cpu_ms) / (std::max(l.wall_ms, 1e-9) * std::max(ncpus, 1));
  return l;
}

namespace {

/// True for kriek's runners and results (kriek, kriek-packed, ...), which the peers are compared against.
bool names_kriek(const std::string& name) { return name.rfind("kriek", 0) == 0; }

// A seed from text (FNV-1a), the same in every process and build.
std::uint64_t seed(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Uniform values in [-1, 1) from splitmix64, seeded by the problem, so every process sees the same A and B.
void fill_random(float* x, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x[i] = static_cast<float>(static_cast<double>(z >> 40) / double(1ull << 23) - 1.0);
  }
}

struct Result {
  std::string name, kernel, status, excluded;
  double median = 0, lo = 0, hi = 0, err = 0;
  double cpu_share = 0;  // CPU time / (wall time x threads) over the timed reps; low = the cores were taken
  double foreign_load = 0;  // share of our cores' time that other processes used during the timed reps
  bool starved = false;
  int calls = 0, attempts = 0;
};

Result measure(Runner& r, const Problem& p, const float* A, const float* B, float* C, const Options& o) {
  Result res{};
  res.name = r.name();
  res.status = "ok";
  if (std::string why = r.unsupported(p, o.threads); !why.empty()) {
    res.status = "skip: " + why;
    return res;
  }
  r.prepare(p, A, B, C, o.threads);
  res.kernel = r.kernel();
  res.excluded = r.excluded();
  std::fill(C, C + p.c_size(), std::numeric_limits<float>::quiet_NaN());  // C must be fully overwritten
  r.run();
  res.err = max_rel_err(p, A, B, C);
  res.calls = calls_per_rep(r, o, o.min_rep_ms);
  // The timed repetitions, tried again while starved (kForeignLoad). Our own CPU share cannot tell: a library that
  // runs a size on one of its two threads legitimately has a share near 50%.
  std::vector<double> g;
  int calls = res.calls;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    std::vector<double> ga;
    const LoadWindow window;
    for (int rep = 0; rep < o.reps; ++rep) {
      auto t = Clock::now();
      for (int c = 0; c < calls; ++c) r.run();
      ga.push_back(p.flops() * calls / (ms_since(t) * 1e6));
    }
    const Load load = window.read();
    const double share = load.own_cpu_ms / (load.wall_ms * o.threads), foreign = load.foreign;
    const bool starved = foreign >= kForeignLoad;
    if (g.empty() || (res.starved && foreign < res.foreign_load)) {
      g = ga, res.calls = calls, res.attempts = attempt;
      res.cpu_share = share, res.foreign_load = foreign, res.starved = starved;
    }
    if (!starved) break;
    double fastest_call_ms = p.flops() / (*std::max_element(ga.begin(), ga.end()) * 1e6);
    calls = std::max(1, int(std::ceil(o.min_rep_ms / fastest_call_ms)));  // keep reps >= min_rep_ms if unstarved
  }
  // Repeated calls must give the same answer: catches kernels that accumulate into C.
  res.err = std::max(res.err, max_rel_err(p, A, B, C));
  r.release();
  std::sort(g.begin(), g.end());
  res.median = g[g.size() / 2];
  res.lo = g.front();
  res.hi = g.back();
  if (!(res.err <= tolerance(p))) res.status = "WRONG";
  return res;
}

std::string csv_field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  return s;
}

/// `path` opened for appending, `header` (a CSV's first line) written first when the file is new or empty: every
/// peer process appends to the same file.
std::ofstream append_to(const std::string& path, const std::string& header) {
  bool fresh = true;
  if (std::ifstream in(path); in && in.peek() != std::ifstream::traits_type::eof()) fresh = false;
  std::ofstream out(path, std::ios::app);
  if (fresh) out << header;
  return out;
}

void append_csv(const Options& o, const Problem& p, const Result& r) {
  std::ofstream out = append_to(
      o.csv, "library,kernel,threads,op,problem,name,batch,M,K,N,gflops_median,gflops_min,gflops_max,pct_of_peak,"
             "peak_gflops_1core,reps,calls_per_rep,max_rel_err,cpu_share,foreign_load,starved,attempts,status,"
             "excluded_from_timing,process\n");
  double pct = o.peak_gflops > 0 ? 100.0 * r.median / (o.peak_gflops * o.threads) : 0.0;
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%d,%s,%s,%s,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.1f,%.1f,%d,%d,%.3g,%.2f,%.2f,%d,%d,",
                o.threads, p.op == Op::conv ? "conv" : "matmul", csv_field(p.text()).c_str(),
                csv_field(p.name).c_str(), p.batch, p.M, p.K, p.N, r.median, r.lo, r.hi, pct, o.peak_gflops, o.reps,
                r.calls, r.err, r.cpu_share, r.foreign_load, int(r.starved), r.attempts);
  out << csv_field(r.name) << ',' << csv_field(r.kernel) << ',' << buf << csv_field(r.status) << ','
      << csv_field(r.excluded) << ',' << csv_field(o.process) << '\n';
}

/// What to say after a paired ratio: " (starved, others N%)" when other processes disturbed its rounds even after
/// kAttempts tries, " (N turns began with the other side's threads busy)" when a wait for them timed out.
std::string notes(const PairedRatio& q) {
  std::string s;
  if (q.starved) s += " (starved, others " + std::to_string(int(std::lround(100 * q.foreign_load))) + "%)";
  if (q.unquiet) s += " (" + std::to_string(q.unquiet) + " turns began with the other side's threads busy)";
  return s;
}

/// Appends a paired ratio's row to the CSV at `path`: the columns `lead_header` (values `lead`), then threads,
/// problem, name, WHAT_median, WHAT_min, WHAT_max, reps, others' load, starved, turns whose wait timed out, process.
void append_paired(const std::string& path, const std::string& lead_header, const std::string& lead,
                   const std::string& what, const Options& o, const Problem& p, const PairedRatio& q) {
  std::ofstream out = append_to(path, lead_header + ",threads,problem,name," + what + "_median," + what + "_min," +
                                          what + "_max,reps,foreign_load,starved,unquiet_turns,process\n");
  char buf[256];
  std::snprintf(buf, sizeof buf, "%d,%s,%s,%.3f,%.3f,%.3f,%d,%.2f,%d,%d,", o.threads, csv_field(p.text()).c_str(),
                csv_field(p.name).c_str(), q.median, q.lo, q.hi, o.reps, q.foreign_load, int(q.starved), q.unquiet);
  out << lead << ',' << buf << csv_field(o.process) << '\n';
}

/// kriek's parallel kernel against its serial one (`_t1`), a paired ratio (paired_ratio: both in this process on
/// the same buffers, rounds alternating). Two processes' medians (one pinned to one CPU, one on all of them) differ
/// by up to a quarter on a shared VM for reasons of their own (the naive runner's process measured some 2-thread
/// kernels 10-25% slower than oneDNN's process in the same run); a paired ratio does not carry that. Appends a row
/// to o.speedup_csv; nothing when the library has no serial variant.
void paired_speedup(const Options& o, const Problem& p, const float* A, const float* B, float* C, bool packed) {
  RunnerPtr par = make_kriek_runner(o, packed), ser = make_kriek_runner(o, packed);
  if (!par->unsupported(p, o.threads).empty() || !ser->unsupported(p, 1).empty()) return;
  const PairedRatio s = paired_ratio(*par, o.threads, *ser, 1, p, A, B, C, o);
  if (s.status != "ok") {
    if (s.status.rfind("WRONG", 0) == 0) std::printf("%-14s %-16s speed-up: %s\n", p.label().c_str(),
                                                     par->name().c_str(), s.status.c_str());
    return;
  }
  std::printf("%-14s %-16s %d threads / 1 thread = %.2fx [%.2f..%.2f] (same process, alternating rounds)%s\n",
              p.label().c_str(), par->name().c_str(), o.threads, s.median, s.lo, s.hi, notes(s).c_str());
  append_paired(o.speedup_csv, "library", csv_field(par->name()), "speedup", o, p, s);
}

/// A kriek variant (`k`) against a peer or the packed variant (`r`), a paired ratio (paired_ratio: > 1 means kriek
/// is faster): printed, and appended to o.ratio_csv when set. The two medians of measure() were timed one after the
/// other, and this VM changes speed by up to 2x between phases of seconds to minutes, so their ratio moved by a
/// quarter between runs; both sides of a paired round see the same phase.
void paired_peer_ratio(const Options& o, const Problem& p, const float* A, const float* B, float* C, Runner& k,
                       const std::string& k_name, Runner& r, const std::string& r_name) {
  const PairedRatio q = paired_ratio(k, o.threads, r, o.threads, p, A, B, C, o);
  if (q.status != "ok") {
    std::printf("%-14s %-12s / %-16s : %s\n", p.label().c_str(), k_name.c_str(), r_name.c_str(), q.status.c_str());
    return;
  }
  std::printf("%-14s %-12s / %-16s = %.2fx [%.2f..%.2f] (same process, alternating rounds)%s\n",
              p.label().c_str(), k_name.c_str(), r_name.c_str(), q.median, q.lo, q.hi, notes(q).c_str());
  if (!o.ratio_csv.empty()) append_paired(o.ratio_csv, "library,peer", csv_field(k_name) + ',' + csv_field(r_name),
                                          "ratio", o, p, q);
}

[[noreturn]] void usage(const char* argv0, const std::string& why) {
  if (!why.empty()) std::fprintf(stderr, "error: %s\n", why.c_str());
  std::fprintf(stderr,
               "usage: %s [--sizes LIST] [--threads N] [--quick] [--reps R] [--min-ms T]\n"
               "          [--peak GFLOPS] [--csv FILE] [--speedup-csv FILE] [--ratio-csv FILE] [--label NAME]\n"
               "          [--kriek-so PATH --kriek-symbol NAME [--kriek-size SIZE] | --kriek-lib PATH]\n"
               "          [--list-kriek]\n"
               "  LIST: comma-separated problems, each [NAME=]SIZE with SIZE one of\n"
               "    n | MxKxN | BxMxKxN          matmul (square, plain, batched)\n"
               "    NxHxWxC:FHxFWxF[:sS][:pP]    NHWC conv, FH x FW x C x F filters, stride S, zero padding P\n"
               "  --speedup-csv: with --kriek-lib and 2+ threads, also time kriek's parallel kernel against its\n"
               "    serial one in this process, alternating rounds, and append the speed-up there\n"
               "  each kriek variant against each peer (and the packed variant) is a paired ratio: both prepared,\n"
               "    rounds alternating, peer time / kriek time per round (> 1: kriek faster), median [min..max];\n"
               "  --ratio-csv: append those ratios there\n"
               "  --list-kriek: print each problem's kriek kernel name, spec text and label (tab-separated),\n"
               "    run nothing\n",
               argv0);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  const char* slash = std::strrchr(argv[0], '/');
  o.process = slash ? slash + 1 : argv[0];
  std::string sizes = "64,128,256,257,512,1000,1024,2048,2048x2048x1,4096x64x64,64x4096x64", kriek_size;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") usage(argv[0], "");
    else if (a == "--sizes") sizes = value();
    else if (a == "--threads") o.threads = std::atoi(value().c_str());
    else if (a == "--quick") o.reps = 7, o.warmup_ms = 30;
    else if (a == "--reps") o.reps = std::atoi(value().c_str());
    else if (a == "--min-ms") o.min_rep_ms = std::atof(value().c_str());
    else if (a == "--peak") o.peak_gflops = std::atof(value().c_str());
    else if (a == "--csv") o.csv = value();
    else if (a == "--speedup-csv") o.speedup_csv = value();
    else if (a == "--ratio-csv") o.ratio_csv = value();
    else if (a == "--label") o.label = value();
    else if (a == "--kriek-so") o.kriek_so = value();
    else if (a == "--kriek-symbol") o.kriek_symbol = value();
    else if (a == "--kriek-size") kriek_size = value();
    else if (a == "--kriek-lib") o.kriek_lib = value();
    else if (a == "--list-kriek") o.list_kriek = true;
    else usage(argv[0], "unknown option '" + a + "'");
  }
  std::stringstream ss(sizes);
  for (std::string t; std::getline(ss, t, ',');) {
    Problem p;
    if (!parse_problem(t, p)) usage(argv[0], "bad size '" + t + "' (see the forms below)");
    o.problems.push_back(p);
  }
  if (o.threads < 1) usage(argv[0], "--threads must be at least 1");
  if (o.reps < 7) usage(argv[0], "--reps must be at least 7 (the median of fewer is too noisy)");
  if (o.kriek_so.empty() != o.kriek_symbol.empty()) usage(argv[0], "--kriek-so and --kriek-symbol go together");
  if (!o.kriek_so.empty() && !o.kriek_lib.empty()) usage(argv[0], "--kriek-lib excludes --kriek-so");
  if (!o.kriek_so.empty()) {
    if (!kriek_size.empty() && !parse_problem(kriek_size, o.kriek_problem))
      usage(argv[0], "bad --kriek-size '" + kriek_size + "'");
    if (kriek_size.empty() && o.problems.size() != 1)
      usage(argv[0], "a kriek kernel has one fixed size: give --kriek-size SIZE or a single --sizes entry");
    if (kriek_size.empty()) o.kriek_problem = o.problems[0];
  }
  return o;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  Options o = parse_options(argc, argv);
  if (o.list_kriek) {
    for (const Problem& p : o.problems) {
      std::printf("%s\t%s\t%s\n", p.kriek_symbol().c_str(), p.kriek_spec().c_str(), p.label().c_str());
      std::printf("%s\t%s\t%s\n", p.kriek_packed_symbol().c_str(), p.kriek_packed_spec().c_str(), p.label().c_str());
    }
    return 0;
  }
  // Libraries that allocate buffers inside every call (Eigen's packing, oneDNN's gemm:jit) would otherwise have
  // glibc return them to the kernel and fault them back in on the next call (up to 4x at some sizes, see
  // shared/PEERS.md): every peer and kriek run with the trim threshold at 1 GiB and the mmap threshold at glibc's
  // maximum, 32 MiB (a larger value is refused).
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  std::vector<RunnerPtr> runners = peer_runners(o);
  bool any_wrong = false;
  if (!o.label.empty() && runners.size() > 1) usage(argv[0], "--label needs an executable with one runner");
  if (!o.kriek_so.empty() || !o.kriek_lib.empty()) runners.push_back(make_kriek_runner(o));
  if (!o.kriek_lib.empty()) runners.push_back(make_kriek_runner(o, true));
  std::printf("# %s, %d thread(s), median of %d reps (each >= %.0f ms); timings exclude each runner's prepare()\n",
              o.process.c_str(), o.threads, o.reps, o.min_rep_ms);
  for (const Problem& p : o.problems) {
    float *A = alloc_aligned(p.a_size()), *B = alloc_aligned(p.b_size()), *C = alloc_aligned(p.c_size());
    fill_random(A, p.a_size(), seed(p.text() + "A"));
    fill_random(B, p.b_size(), seed(p.text() + "B"));
    const std::string label = p.label();
    std::vector<std::pair<Runner*, Result>> results;  // each runner measured on this problem, and its result
    for (RunnerPtr& r : runners) {
      if (!r->handles(p.op)) continue;
      const bool is_kriek = names_kriek(r->name());
      // A kriek kernel computes one fixed size; a library of them skips the sizes it has no kernel for.
      if (is_kriek && !r->unsupported(p, o.threads).empty()) continue;
      Result res = measure(*r, p, A, B, C, o);
      if (!is_kriek && !o.label.empty()) res.name = o.label;
      if (res.status.rfind("skip", 0) == 0) {
        std::printf("%-14s %-16s %s\n", label.c_str(), res.name.c_str(), res.status.c_str());
      } else {
        std::string excl = res.excluded.empty() ? "" : "  [untimed: " + res.excluded + "]";
        std::printf("%-14s %-16s %-26s %7.1f GFLOP/s [%6.1f..%6.1f] cpu %3.0f%% others %2.0f%%%s err %.1e %s%s\n",
                    label.c_str(), res.name.c_str(), res.kernel.substr(0, 26).c_str(), res.median, res.lo,
                    res.hi, 100 * res.cpu_share, 100 * res.foreign_load, res.starved ? " (starved)" : "", res.err,
                    res.status.c_str(), excl.c_str());
      }
      std::fflush(stdout);
      if (!o.csv.empty()) append_csv(o, p, res);
      any_wrong |= res.status == "WRONG";
      results.emplace_back(r.get(), res);
    }
    // Each kriek variant against every peer, and the plain one against the packed one: paired ratios, between
    // runners whose own measurement above was ok.
    for (const auto& [k, kres] : results) {
      if (!names_kriek(kres.name) || kres.status != "ok") continue;
      for (const auto& [r, rres] : results) {
        if (r == k || rres.status != "ok" || (names_kriek(rres.name) && kres.name != "kriek")) continue;
        paired_peer_ratio(o, p, A, B, C, *k, kres.name, *r, rres.name);
        std::fflush(stdout);
      }
    }
    if (o.threads > 1 && !o.kriek_lib.empty() && !o.speedup_csv.empty()) {
      for (bool packed : {false, true}) paired_speedup(o, p, A, B, C, packed);
    }
    free_aligned(A), free_aligned(B), free_aligned(C);
  }
  return any_wrong ? 3 : 0;  // 3: some runner computed a wrong C (see the WRONG rows)
}
