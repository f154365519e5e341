// kriek's kernel runtime: what LLVM-generated kernels call to run a parallel loop. Compiled twice: into
// kriek_codegen, where the JIT links kernels against it, and as a position-independent object with hidden symbols
// that kriek embeds (kernel_runtime.h) and `kriek library` links into every library whose LLVM kernels have
// parallel loops, so a library's kernels run on the same runtime as `kriek run`'s, without kriek.
//
// Loops run on TBB: kriek links it already for its search, a kernel needs no OpenMP runtime (libgomp ships with the
// C compiler the LLVM backend must not need), and on a busy machine a TBB loop whose worker is not scheduled goes
// on without it, where an OpenMP static team waits at its barrier (relu 2048x2048, 2 threads at load 3 on 2 cores:
// 2.3 GFLOP/s on TBB, 0.35-0.5 on libgomp). TBB's static partitioner gives each thread one contiguous range of the
// collapsed iterations, as OpenMP's schedule(static) does. No exception leaves: the entry points are noexcept and
// abort on failure (an exception may not cross a JIT frame).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace {

std::atomic<int> team_size{0};  // 0: every core TBB may use

}  // namespace

/// Runs body(context, first, end) over [0, trips) on up to kriek_runtime_threads() threads.
extern "C" void kriek_parallel_for(void (*body)(void*, std::int64_t, std::int64_t), void* context,
                                   std::int64_t trips) noexcept {
  auto run = [&] {
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, trips),
        [&](const tbb::blocked_range<std::int64_t>& r) { body(context, r.begin(), r.end()); },
        tbb::static_partitioner());
  };
  try {
    const int threads = team_size.load();
    if (threads <= 0) return run();
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
    tbb::task_arena* arena = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto& a = arenas[threads];
      if (!a) a = std::make_unique<tbb::task_arena>(threads);
      arena = a.get();
    }
    arena->execute(run);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kriek: a parallel loop failed: %s\n", e.what());
    std::abort();
  }
}

/// Sets the threads of later parallel loops (0: every core TBB may use).
extern "C" void kriek_runtime_set_threads(int threads) noexcept { team_size = threads; }

/// The threads a parallel loop will use.
extern "C" int kriek_runtime_threads() noexcept {
  return team_size > 0 ? team_size.load() : tbb::this_task_arena::max_concurrency();
}
