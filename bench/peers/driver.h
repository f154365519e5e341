// The common interface of the kernel benchmark: a Runner computes row-major FP32 C = A·B for one problem size;
// the driver (driver.cpp) prepares each runner once, times it and checks its result against a reference.
// Each peer executable supplies peer_runners(); the kriek runner (kriek_runner.cpp) is linked into every one.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace bench {

/// Row-major C[M,N] = A[M,K] · B[K,N] in FP32.
struct Problem {
  int M = 0, K = 0, N = 0;
  double flops() const { return 2.0 * M * K * N; }
  friend bool operator==(const Problem&, const Problem&) = default;
  std::string text() const;  // "MxKxN"
};

/// Parses "n" (n x n x n) or "MxKxN"; returns false on malformed text.
bool parse_problem(const std::string& text, Problem& out);

/// One library's (or kriek's) way of computing C = A·B.
///
/// Protocol, per problem: supports() -> prepare() once (untimed: primitive creation, JIT, one-time reorders
/// of B) -> run() many times (timed) -> release(). run() must overwrite all of C with A·B, whatever C held.
class Runner {
 public:
  virtual ~Runner() = default;
  /// Label in tables and the CSV, e.g. "openblas-forced".
  virtual std::string name() const = 0;
  /// What the library picked at run time (OpenBLAS core, BLIS arch, oneDNN implementation), for the record.
  virtual std::string kernel() const { return ""; }
  /// Empty when the runner handles `p` with `threads` threads, else the reason it skips.
  virtual std::string unsupported(const Problem& p, int threads) const {
    (void)p;
    (void)threads;
    return "";
  }
  /// One-time, untimed set-up on the buffers that every run() then uses. A and B stay constant.
  virtual void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) = 0;
  /// The timed call: C = A·B on the buffers given to prepare().
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
  std::string label;          // overrides the peer's name() when set (single-runner executables)
  std::string process;        // this executable's name, recorded in the CSV
  std::string kriek_so, kriek_symbol;
  Problem kriek_problem;      // the one size the kriek kernel computes
  std::string kriek_lib;      // a library of kriek kernels, one per size, named as `kriek emit` names them
};

/// The runners of this executable's library; defined once per peer executable.
std::vector<RunnerPtr> peer_runners(const Options& opts);

/// The runner of a kriek kernel loaded from opts.kriek_so; defined in kriek_runner.cpp.
RunnerPtr make_kriek_runner(const Options& opts);

/// Allocates n floats aligned to 64 bytes (a cache line and a zmm register), freed by free_aligned.
float* alloc_aligned(std::size_t n);
void free_aligned(float* p);

}  // namespace bench
