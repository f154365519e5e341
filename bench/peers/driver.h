// The common interface of the kernel and conv benchmarks: a Runner computes one Problem (problem.h: a plain or
// batched matmul, or a convolution) into C from A and B; the driver (driver.cpp) prepares each runner once, times
// it and checks its result against a reference. Each peer executable supplies peer_runners(); the kriek runner
// (kriek_runner.cpp) is linked into every one.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "problem.h"

namespace bench {

/// One library's (or kriek's) way of computing a Problem: C = A·B for a matmul (batched: one per batch), the
/// convolution of image A with filters B into C.
///
/// Protocol, per problem: handles() and unsupported() -> prepare() once (untimed: primitive creation, JIT,
/// one-time reorders of B) -> run() many times (timed) -> release(). run() must overwrite all of C, whatever C held.
/// The driver prepares a runner twice per problem (its own measurement, then the paired ratios, paired.cpp), and
/// two runners at once on the same A, B, C: prepare() keeps what it makes in the runner, and a process-wide setting
/// it makes (a library's thread count) must not change another runner's result.
class Runner {
 public:
  virtual ~Runner() = default;
  /// Label in tables and the CSV, e.g. "openblas-forced".
  virtual std::string name() const = 0;
  /// What the library picked at run time (OpenBLAS core, BLIS arch, oneDNN implementation), for the record.
  virtual std::string kernel() const { return ""; }
  /// Whether the runner computes this kind of problem at all (the driver leaves it out of other kinds' tables).
  virtual bool handles(Op op) const = 0;
  /// Empty when the runner handles `p` with `threads` threads, else the reason it skips.
  virtual std::string unsupported(const Problem& p, int threads) const {
    (void)p;
    (void)threads;
    return "";
  }
  /// One-time, untimed set-up on the buffers that every run() then uses. A and B stay constant.
  virtual void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) = 0;
  /// The timed call on the buffers given to prepare(): nothing but the library's call (set-up belongs in
  /// prepare(), so every runner is timed the same way).
  virtual void run() = 0;
  /// Frees what prepare() made.
  virtual void release() {}
  /// What prepare() does that the timing therefore excludes, printed beside the result ("" = nothing).
  virtual std::string excluded() const { return ""; }
};

using RunnerPtr = std::unique_ptr<Runner>;

/// Command-line options shared by every peer executable.
struct Options {
  std::vector<Problem> problems;
  int threads = 1;
  int reps = 11;              // timed repetitions; the median is reported (at least 7)
  double min_rep_ms = 50.0;   // each repetition repeats run() until it lasts at least this long
  double warmup_ms = 100.0;   // untimed calls before calibration
  double peak_gflops = 0.0;   // measured single-core peak (peak_fma), for the % column; 0 = unknown
  std::string csv;            // append one row per result here when set
  std::string speedup_csv;    // with --kriek-lib and 2+ threads: kriek's speed-up measured in this process (below)
  std::string ratio_csv;      // append each kriek variant's paired ratio to every peer here when set (below)
  std::string label;          // overrides the peer's name() when set (single-runner executables)
  std::string process;        // this executable's name, recorded in the CSV
  std::string kriek_so, kriek_symbol;
  Problem kriek_problem;      // the one size the kriek kernel computes
  std::string kriek_lib;      // a library of kriek kernels, one per size, named by Problem::kriek_symbol()
  bool list_kriek = false;    // print each problem's kriek symbol, spec text and label, run nothing
};

/// The runners of this executable's library; defined once per peer executable.
std::vector<RunnerPtr> peer_runners(const Options& opts);

/// The runner of a kriek kernel loaded from opts.kriek_so; defined in kriek_runner.cpp.
RunnerPtr make_kriek_runner(const Options& opts, bool packed = false);

/// Other processes' share of this process's cores above which a timing is starved: a descheduled thread stalls
/// every barrier of a 2-thread library (oneDNN fell from ~400 to ~3 GFLOP/s against one busy loop), so that time
/// measures the machine. A starved timing is tried again, up to kAttempts tries, and the least-starved one kept.
constexpr double kForeignLoad = 0.15;
constexpr int kAttempts = 3;

/// What a LoadWindow saw between its opening and read().
struct Load {
  double wall_ms = 0, own_cpu_ms = 0;  // elapsed; this process's CPU time (user + system, every thread)
  double foreign = 0;  // share of the time of the CPUs this process may run on that others used (steal included)
};

/// Opened before a stretch of timed work and read after it (from getrusage and /proc/stat).
class LoadWindow {
 public:
  LoadWindow();
  Load read() const;

 private:
  std::chrono::steady_clock::time_point wall0_;
  double cpu0_ = 0, busy0_ = 0;
};

/// Warms `r` up (prepared) for o.warmup_ms, then returns the calls one repetition makes to last at least `rep_ms`.
int calls_per_rep(Runner& r, const Options& o, double rep_ms);

/// A paired ratio (paired.cpp): b's time per call over a's, per round, over o.reps rounds.
struct PairedRatio {
  std::string status;  // "ok", else why there is no ratio
  double median = 0, lo = 0, hi = 0;
  double foreign_load = 0;  // others' share of our cores during the rounds (the least-starved try's)
  bool starved = false;
  int unquiet = 0;  // turns that began with the other side's threads still busy after the longest wait
};

/// Times `a` (prepared for a_threads) against `b` (for b_threads) in one process on the same A, B, C: both
/// prepared at once, then o.reps rounds of a's calls then b's calls, each side timed ~o.min_rep_ms / 2 once the
/// other side's threads are idle; the ratio of a round is b's time per call / a's (> 1: a is faster); the rounds
/// tried again when starved. Releases both. Serves every "kriek / peer" ratio of the driver and kriek's speed-up
/// over its serial kernel (a = parallel, b = serial).
PairedRatio paired_ratio(Runner& a, int a_threads, Runner& b, int b_threads, const Problem& p, const float* A,
                         const float* B, float* C, const Options& o);

/// Allocates n floats aligned to 64 bytes (a cache line and a zmm register), freed by free_aligned.
float* alloc_aligned(std::size_t n);
void free_aligned(float* p);

}  // namespace bench
