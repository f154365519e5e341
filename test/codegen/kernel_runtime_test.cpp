// kriek's kernel runtime (codegen/runtime/kernel_runtime.cpp) on its own: every iteration of a loop runs exactly
// once, in one contiguous range per thread, whatever the team size, the trip count and the callers (loops back to
// back, after the workers went to sleep, from several threads at once, from a thread the team is busy for); the
// caller runs the first range, and the ranges are cut as OpenMP's static schedule cuts them (the first ones one
// trip longer), as the cost model assumes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "codegen/kernel_runtime.h"

namespace {

/// A loop's record: how often each iteration ran, and the ranges the body got.
struct Record {
  std::vector<std::atomic<int>> runs;
  std::atomic<int> ranges{0};
  std::mutex mutex;
  std::vector<std::pair<std::int64_t, std::int64_t>> cut;  ///< the ranges, as (first, end)
  explicit Record(std::int64_t trips) : runs(static_cast<std::size_t>(trips)) {}
};

void count(void* context, std::int64_t first, std::int64_t end) {
  auto& r = *static_cast<Record*>(context);
  r.ranges.fetch_add(1);
  for (std::int64_t i = first; i < end; ++i) r.runs[static_cast<std::size_t>(i)].fetch_add(1);
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.cut.emplace_back(first, end);
}

/// Runs one loop of `trips` and checks each iteration ran once, in at most `threads` ranges.
void check_loop(std::int64_t trips, int threads) {
  Record r(trips);
  kriek_parallel_for(count, &r, trips);
  for (std::int64_t i = 0; i < trips; ++i) REQUIRE(r.runs[static_cast<std::size_t>(i)].load() == 1);
  CHECK(r.ranges.load() <= std::max(1, threads));
  CHECK(r.ranges.load() == std::min<std::int64_t>(trips, threads));
  // Ranges of trips / parts trips, the first trips % parts of them one longer.
  std::sort(r.cut.begin(), r.cut.end());
  const auto parts = static_cast<std::int64_t>(r.cut.size());
  for (std::int64_t i = 0; i < parts; ++i) {
    const auto [first, end] = r.cut[static_cast<std::size_t>(i)];
    CHECK(end - first == trips / parts + (i < trips % parts ? 1 : 0));
  }
}

}  // namespace

TEST_CASE("the runtime runs every iteration once in one range per thread", "[codegen][runtime]") {
  for (int threads : {1, 2, 3, 5}) {
    kriek_runtime_set_threads(threads);
    CHECK(kriek_runtime_threads() == threads);
    for (std::int64_t trips : {0, 1, 2, 3, 7, 64, 1001}) check_loop(trips, threads);
    for (int i = 0; i < 200; ++i) check_loop(17, threads);  // back to back: the workers spin between loops
  }
  // More threads asked for than CPUs or than a loop has ranges for (16 bits of them): the ranges are cut as asked,
  // up to 65,535, and run on at most a thread per CPU (60,000 threads used to hang `kriek run`).
  kriek_runtime_set_threads(100000);
  Record many(70000);
  kriek_parallel_for(count, &many, 70000);
  CHECK(many.ranges.load() == 65535);
  CHECK(std::all_of(many.runs.begin(), many.runs.end(), [](const std::atomic<int>& n) { return n.load() == 1; }));
  // After the workers went to sleep (the spin is 200 us), a loop wakes them.
  kriek_runtime_set_threads(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  check_loop(100, 2);
  kriek_runtime_set_threads(0);
  CHECK(kriek_runtime_threads() >= 1);
}

TEST_CASE("loops from several threads at once each run every iteration once", "[codegen][runtime]") {
  // One caller's loop holds the team; another's runs on its own thread meanwhile.
  kriek_runtime_set_threads(2);
  std::atomic<int> bad{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 3; ++c) {
    callers.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        Record r(31);
        kriek_parallel_for(count, &r, 31);
        for (const std::atomic<int>& n : r.runs) bad += n.load() != 1;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  CHECK(bad.load() == 0);
  kriek_runtime_set_threads(0);
}

namespace {

/// Which thread ran each range of a loop of 2 iterations; the second sleeps, so it is the last to end.
struct Runners {
  std::mutex mutex;
  std::thread::id of[2];
};

void note_runner(void* context, std::int64_t first, std::int64_t end) {
  auto& r = *static_cast<Runners*>(context);
  for (std::int64_t i = first; i < end; ++i) {
    if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(r.mutex);
    r.of[i] = std::this_thread::get_id();
  }
}

}  // namespace

TEST_CASE("the caller runs the first range of every loop", "[codegen][runtime]") {
  // Range 0 is the caller's, as thread 0 of a static schedule: a kernel called again finds its slice in the same
  // core's caches. Another thread could take it only by finishing its own 20 ms range first.
  kriek_runtime_set_threads(2);
  for (int i = 0; i < 5; ++i) {
    Runners r;
    kriek_parallel_for(note_runner, &r, 2);
    CHECK(r.of[0] == std::this_thread::get_id());
    CHECK(r.of[1] != std::thread::id());
  }
  kriek_runtime_set_threads(0);
}
