// The paired measurement of the kernel benchmark: two runners prepared together on the same buffers and timed in
// alternating rounds, the ratio taken round by round. The VM this runs on changes speed by up to 2x over seconds to
// minutes ("phases"): a ratio of two medians measured one after the other carries that change (kriek / libxsmm
// moved from 0.80x to 1.04x between two runs minutes apart), while both sides of a round see the same phase.
//
// Coexistence (every *_runner.cpp read): each runner keeps what prepare() makes in its own object (buffers, oneDNN
// primitives and packed weights, libxsmm kernels, kriek's packed B), and the process-wide settings prepare() makes
// are thread counts (OpenMP, OpenBLAS, BLIS, Eigen) that both sides set to the same value, or that kriek's kernels
// ignore (a serial _t1 variant, or a parallel kernel on kriek's own thread team, a thread per CPU the process may
// use). So two runners stay prepared at once, no prepare/release around each side. C is overwritten by each, and
// each side's C is checked once with both prepared: a runner that did depend on the other shows as WRONG here
// rather than as a ratio. What does not coexist for free is their threads: libgomp's, OpenBLAS's and kriek's teams
// spin after a call, so each turn waits until the other side's have gone to sleep (wait_until_quiet).
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "driver.h"

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Runs `r` once on a C of NaNs and returns the error of its result (every runner overwrites all of C).
double checked_run(Runner& r, const Problem& p, const float* A, const float* B, float* C) {
  std::fill(C, C + p.c_size(), std::numeric_limits<float>::quiet_NaN());
  r.run();
  return max_rel_err(p, A, B, C);
}

/// Each thread of this process but the caller, by id, with its CPU time in ms. Each read from the thread's own CPU
/// clock: the process's clock adds a thread that runs on another CPU only at its scheduler ticks (4 ms apart), so a
/// spinning thread there looks idle for milliseconds.
std::vector<std::pair<pid_t, double>> other_threads_cpu_ms() {
  std::vector<std::pair<pid_t, double>> threads;
  const pid_t self = gettid();
  if (DIR* dir = opendir("/proc/self/task")) {
    for (const dirent* e = readdir(dir); e; e = readdir(dir)) {
      const pid_t tid = std::atoi(e->d_name);
      timespec t{};
      // A thread's clock id as glibc's pthread_getcpuclockid makes it (CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK).
      if (tid > 0 && tid != self && clock_gettime((~clockid_t(tid) << 3) | 6, &t) == 0)
        threads.emplace_back(tid, 1e3 * double(t.tv_sec) + 1e-6 * double(t.tv_nsec));
    }
    closedir(dir);
  }
  std::sort(threads.begin(), threads.end());
  return threads;
}

/// Sleeps until no other thread of this process has used a tenth of the time in a millisecond, at most kQuietMaxMs;
/// false when they were still busy then. After its last call a runner leaves its threads spinning, and they take a
/// core from the next side's threads: on 2 threads, after oneDNN's side (libgomp spins 300,000 times, ~3 ms here)
/// kriek's first ~10 ms ran 10-35% slower, after OpenBLAS's (its threads yield in a loop for 2^28 cycles, ~0.11 s)
/// its first ~30 ms 50-65% slower, while measure() times a runner long after the last one stopped. (Sleeping or
/// spinning meanwhile made no difference we could measure; sleeping leaves the CPUs to those threads.)
bool wait_until_quiet() {
  constexpr double kQuietMaxMs = 300;
  const auto t0 = Clock::now();
  for (auto before = other_threads_cpu_ms(); ms_since(t0) < kQuietMaxMs;) {
    const auto w = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto after = other_threads_cpu_ms();
    double used = 0;  // by the threads present at both ends
    for (const auto& [tid, ms] : after) {
      const auto it = std::lower_bound(before.begin(), before.end(), std::make_pair(tid, 0.0));
      if (it != before.end() && it->first == tid) used += ms - it->second;
    }
    if (used < 0.1 * ms_since(w)) return true;
    before = after;
  }
  return false;
}

/// One side of a pair: its runner, the timed calls of a round and the untimed ones before them.
struct Side {
  Runner& r;
  int calls = 1, settle_calls = 0;
};

/// One side's turn in a round, in ms per timed call: waits until the other side's threads are idle, makes a
/// millisecond of untimed calls, at least one (its own threads wake, its operands come back into cache), then times
/// its calls. Counts a wait that timed out in *unquiet. Without the one call, a kernel of more than a millisecond
/// was timed from cold caches in each turn's first call: conv res3_3x3 with its filters read in place (kriek-packed)
/// measured 1.12-1.21x the time of the same layer packing its filters every call in turns of 25 ms, 1.01x in turns
/// of 200 ms.
double turn(Side& s, int* unquiet) {
  if (!wait_until_quiet()) ++*unquiet;
  for (int c = 0; c < s.settle_calls; ++c) s.r.run();
  const auto t = Clock::now();
  for (int c = 0; c < s.calls; ++c) s.r.run();
  return ms_since(t) / s.calls;
}

}  // namespace

int calls_per_rep(Runner& r, const Options& o, double rep_ms) {
  int warm = 0;
  const auto t0 = Clock::now();
  do { r.run(), ++warm; } while (ms_since(t0) < o.warmup_ms);
  return std::max(1, int(std::ceil(rep_ms / std::max(ms_since(t0) / warm, 1e-6))));
}

PairedRatio paired_ratio(Runner& a, int a_threads, Runner& b, int b_threads, const Problem& p, const float* A,
                         const float* B, float* C, const Options& o) {
  PairedRatio res;
  a.prepare(p, A, B, C, a_threads);
  b.prepare(p, A, B, C, b_threads);
  if (a.name() == b.name() && a.kernel() == b.kernel()) {
    res.status = "the same kernel on both sides";  // kriek's library without a serial variant, say
  } else if (double ea = checked_run(a, p, A, B, C), eb = checked_run(b, p, A, B, C);
             !(ea <= tolerance(p)) || !(eb <= tolerance(p))) {
    res.status = "WRONG with both prepared (" + a.name() + (ea <= tolerance(p) ? " ok, " : " wrong, ") + b.name() +
                 (eb <= tolerance(p) ? " ok)" : " wrong)");
  } else {
    // Each side's turn is timed for about half a repetition of measure(), so the pair costs about what one
    // runner's measurement does (plus the waits for the other side's threads). A slow phase of the VM slows both
    // sides of a round; another process on one of our cores need not (a 2-thread library stalls at its barriers,
    // kriek's team does not), so starved rounds are tried again as in measure().
    constexpr double kSettleMs = 1;
    const double side_ms = o.min_rep_ms / 2;
    Side sa{a}, sb{b};
    for (Side* s : {&sa, &sb}) {
      s->calls = calls_per_rep(s->r, o, side_ms);
      s->settle_calls = std::max(1, int(s->calls * kSettleMs / side_ms));
    }
    std::vector<double> kept;
    for (int attempt = 1; attempt <= kAttempts; ++attempt) {
      std::vector<double> ratio;
      int unquiet = 0;
      const LoadWindow window;
      for (int round = 0; round < o.reps; ++round) {
        const double a_ms = turn(sa, &unquiet);
        ratio.push_back(turn(sb, &unquiet) / a_ms);
      }
      const double foreign = window.read().foreign;
      if (kept.empty() || foreign < res.foreign_load) kept = ratio, res.foreign_load = foreign, res.unquiet = unquiet;
      if (foreign < kForeignLoad) break;
    }
    std::sort(kept.begin(), kept.end());
    res.status = "ok";
    res.median = kept[kept.size() / 2], res.lo = kept.front(), res.hi = kept.back();
    res.starved = res.foreign_load >= kForeignLoad;
  }
  a.release();
  b.release();
  return res;
}

}  // namespace bench
