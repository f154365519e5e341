// kriek's kernel runtime: what LLVM-generated kernels call to run a parallel loop. Compiled twice: into
// kriek_codegen, where the JIT links kernels against it, and as a position-independent object with hidden symbols
// that kriek embeds (kernel_runtime.h) and `kriek library` links into every library whose LLVM kernels have
// parallel loops, so a library's kernels run on the same runtime as `kriek run`'s, without kriek.
//
// A team of threads of its own (a kernel needs no OpenMP runtime, which the C compiler the LLVM backend must not
// need ships, and no TBB). A loop's iterations are cut into one contiguous range per thread (OpenMP's
// schedule(static), which the cost model's cross-core lines assume). Range i is thread i's (the caller is thread
// 0) as in a static schedule, so a kernel called again finds its slice of the operands in the same core's caches
// (relu 512x1024 on 2 threads, in L2: 59.6 us when the ranges went to whichever thread came first, 37.2 us); but a
// thread that has finished its own range claims any range still unclaimed, the caller included: on a busy machine
// a worker that is not scheduled leaves its range to the caller, where an OpenMP static team waits at its barrier
// (relu 2048x2048, 2 threads at load 3 on 2 cores: 2.3 GFLOP/s with claimed ranges, 0.35-0.5 on libgomp). Between
// loops the workers spin for kSpin before they sleep, as OpenMP's do: a kernel called again meanwhile starts in
// the time one cache line takes between the cores instead of a sleeping thread's wake-up (Sapphire Rapids, 2
// cores: about 6,000 cycles on TBB, whose workers sleep at once). One loop runs on the team at a time; a loop that
// finds it busy (a second caller thread) runs serially.
// No exception leaves: the entry points are noexcept and abort on failure (an exception may not cross a JIT frame).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <sched.h>

namespace {

using Body = void (*)(void*, std::int64_t, std::int64_t);

/// The most ranges one loop is cut into, and the words of claim bits that hold a bit for each.
constexpr std::int64_t kMaxParts = 0xffff;
constexpr int kClaimWords = (kMaxParts + 63) / 64;

/// How long an idle worker spins before it sleeps.
constexpr std::chrono::microseconds kSpin{200};

/// The CPUs this process may run on (at least 1).
int cpu_count() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 1;
  return CPU_COUNT(&allowed) > 0 ? CPU_COUNT(&allowed) : 1;
}

inline void relax() { __builtin_ia32_pause(); }

class Team {
 public:
  explicit Team(int threads) {
    for (std::atomic<std::uint64_t>& word : claimed_) word.store(~std::uint64_t{0}, std::memory_order_relaxed);
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~Team() {
    {
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs body(context, first, end) over [0, trips) in `parts` contiguous ranges (2 <= parts <= kMaxParts): the
  /// caller runs the ranges no worker claims, so a team smaller than `parts` runs them all.
  void run(Body body, void* context, std::int64_t trips, int parts) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return body(context, 0, trips);  // another caller's loop holds the team
    body_ = body;
    context_ = context;
    trips_ = trips;
    parts_ = parts;
    done_.store(0, std::memory_order_relaxed);
    // The loop's claim bits: clear for its ranges, set past them. A claim that reads one of these words sees the
    // loop's body, context and trips (release), whenever the claimer learnt of the loop.
    for (int w = 0; w < words_of(parts); ++w) {
      const int free = std::min(64, parts - 64 * w);
      claimed_[w].store(free == 64 ? 0 : ~std::uint64_t{0} << free, std::memory_order_release);
    }
    // Only busy_'s holder starts a loop.
    const std::uint64_t generation = (generation_of(next_.load(std::memory_order_relaxed)) + 1) & 0xffffffffu;
    const std::uint64_t start = generation << 32 | static_cast<std::uint64_t>(parts);
    next_.store(start, std::memory_order_seq_cst);  // publishes the loop: workers spin on next_
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      { std::lock_guard<std::mutex> lock(sleep_mutex_); }
      wake_.notify_all();
    }
    claim(0, parts);
    while (done_.load(std::memory_order_acquire) != parts) relax();
  }

 private:
  // next_ packs the loop's generation (bits 32-63) and its ranges (0-31); claimed_ has a bit per range, set by the
  // thread that runs it. Between loops every claim bit is set (every range of the last loop ran; the bits past its
  // ranges were set when it began), so a thread that learnt of a loop late claims nothing, or a range of the loop
  // that runs now, whose body, context and trips it reads only after its claim.
  static std::uint64_t generation_of(std::uint64_t next) { return next >> 32; }
  static int parts_of(std::uint64_t next) { return static_cast<int>(next & 0xffffffffu); }
  static int words_of(int parts) { return (parts + 63) / 64; }

  /// Claims range `r` if it is unclaimed.
  bool try_claim(int r) {
    std::atomic<std::uint64_t>& word = claimed_[r / 64];
    const std::uint64_t bit = std::uint64_t{1} << (r % 64);
    std::uint64_t bits = word.load(std::memory_order_relaxed);
    while (!(bits & bit)) {
      if (word.compare_exchange_weak(bits, bits | bit, std::memory_order_acquire, std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  /// Runs range r of the loop that runs now. As in OpenMP's schedule(static), the first trips % parts ranges
  /// take one trip more: range 0 is a longest one, and a loop's last trips (its boundary tiles, the smaller ones)
  /// fall in the shorter ranges. The cost model prices a parallel loop by range 0 (impl/team.h team_share_runs).
  void run_range(int r) {
    const std::int64_t share = trips_ / parts_, longer = trips_ % parts_;
    const std::int64_t first = r * share + std::min<std::int64_t>(r, longer);
    const std::int64_t end = first + share + (r < longer ? 1 : 0);
    if (first < end) body_(context_, first, end);
    done_.fetch_add(1, std::memory_order_release);
  }

  /// Thread `self`'s part of a loop of `parts` ranges: its own range (as in a static schedule) and then, in
  /// order, any other that nobody has claimed yet.
  void claim(int self, int parts) {
    if (self < parts && try_claim(self)) run_range(self);
    for (int w = 0; w < words_of(parts); ++w) {
      for (std::uint64_t free = ~claimed_[w].load(std::memory_order_relaxed); free != 0;
           free = ~claimed_[w].load(std::memory_order_relaxed)) {
        const int r = 64 * w + __builtin_ctzll(free);
        if (try_claim(r)) run_range(r);
      }
    }
  }

  void work(int self) {
    std::uint64_t seen = generation_of(next_.load(std::memory_order_acquire));
    while (true) {
      std::uint64_t next = next_.load(std::memory_order_acquire);
      const auto until = std::chrono::steady_clock::now() + kSpin;
      for (int i = 0; generation_of(next) == seen && !stop_.load(std::memory_order_relaxed); ++i) {
        relax();
        next = next_.load(std::memory_order_acquire);
        if (i % 64 == 63 && generation_of(next) == seen && std::chrono::steady_clock::now() > until) {
          std::unique_lock<std::mutex> lock(sleep_mutex_);
          sleepers_.fetch_add(1, std::memory_order_seq_cst);
          wake_.wait(lock, [&] {
            next = next_.load(std::memory_order_seq_cst);
            return generation_of(next) != seen || stop_.load();
          });
          sleepers_.fetch_sub(1, std::memory_order_relaxed);
        }
      }
      if (stop_.load()) return;
      seen = generation_of(next);
      claim(self, parts_of(next));
    }
  }

  std::vector<std::thread> workers_;
  std::mutex busy_;  ///< held by the loop that runs on the team
  alignas(64) std::atomic<std::uint64_t> next_{0};
  // The current loop, written by its caller (holding busy_) before it resets the claim bits, on the cache line of
  // the first ones: a claim brings them along.
  alignas(64) Body body_ = nullptr;
  void* context_ = nullptr;
  std::int64_t trips_ = 0;
  int parts_ = 0;
  std::atomic<std::uint64_t> claimed_[kClaimWords];  ///< a bit per range, set when it is claimed
  alignas(64) std::atomic<int> done_{0};  ///< ranges finished
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
};

std::atomic<int> team_size{0};  // 0: every CPU the process may use

int default_threads() {
  static const int n = cpu_count();
  return n;
}

/// A team of at least `threads` threads: the largest made so far, or a new larger one (the smaller ones stay until
/// the program ends, since a loop of another caller may still run on them). Callers ask for at most a thread per
/// CPU: more would only take turns (and `--run-threads 60000` made 60,000 threads that every loop woke).
Team& team_of(int threads) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<Team>> teams;
  std::lock_guard<std::mutex> lock(mutex);
  if (teams.empty() || teams.back()->size() < threads) teams.push_back(std::make_unique<Team>(threads));
  return *teams.back();
}

}  // namespace

/// Sets the threads of later parallel loops (0: every CPU the process may use).
extern "C" void kriek_runtime_set_threads(int threads) noexcept { team_size = threads; }

/// The threads a parallel loop will use.
extern "C" int kriek_runtime_threads() noexcept { return team_size > 0 ? team_size.load() : default_threads(); }

/// Runs body(context, first, end) over [0, trips) on up to kriek_runtime_threads() threads.
extern "C" void kriek_parallel_for(Body body, void* context, std::int64_t trips) noexcept {
  try {
    const int threads = kriek_runtime_threads();
    if (trips <= 0) return;
    // One range per thread asked for (the ranges the cost model assumes), on at most a thread per CPU.
    const int parts = static_cast<int>(std::min<std::int64_t>({threads, trips, kMaxParts}));
    if (parts <= 1) return body(context, 0, trips);
    team_of(std::min(threads, default_threads())).run(body, context, trips, parts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kriek: a parallel loop failed: %s\n", e.what());
    std::abort();
  }
}
