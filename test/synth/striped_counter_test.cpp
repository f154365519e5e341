// StripedCounter: the search's counters, one cell per thread; reads sum the cells.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "synth/striped_counter.h"

using namespace kriek;

TEST_CASE("a striped counter sums what every thread added", "[synth][counter]") {
  StripedCounter c;
  CHECK(c.load() == 0);
  c.fetch_add(5);
  CHECK(c == 5);
  // More threads than cells: threads that share a cell still count exactly.
  std::vector<std::thread> threads;
  for (int t = 0; t < 24; ++t) {
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 1000; ++i) c.fetch_add(static_cast<std::uint64_t>(t % 3 + 1));
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(c.load() == 5 + 1000 * (8 * 1 + 8 * 2 + 8 * 3));
}

TEST_CASE("a striped counter's fetch_add returns this thread's count before the add", "[synth][counter]") {
  StripedCounter c;
  std::uint64_t before = 0;
  std::thread([&] {
    for (int i = 0; i < 10; ++i) before = c.fetch_add(1);
  }).join();
  // The last add saw the nine before it (no other thread adds to this counter).
  CHECK(before == 9);
  CHECK(c.load() == 10);
}
