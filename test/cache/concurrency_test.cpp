// Several readers at once: threads sharing one mapped Table and threads each opening their own, while a writer
// replaces the file. Tagged [tsan]: build with -DKRIEK_TSAN=ON in its own build directory and run
// `test_cache "[tsan]"` (see README.md, "The DP table").
#include <atomic>
#include <thread>

#include <catch2/catch.hpp>

#include "helpers.h"

namespace kriek {
namespace {

TEST_CASE("concurrent readers of one table see every Spec", "[cache][tsan]") {
  testing::TempDir dir;
  const auto path = dir / "t.table";
  const auto contents = synthetic_contents(41, 0, 2000);
  test::write_table(path, contents);
  const Table shared = Table::open(path);

  std::atomic<int> found{0};
  std::vector<std::thread> threads;  // threads t and t+2 each read every other Spec: each Spec twice
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const Table own = Table::open(path);  // a reader of its own, as another process would be
      for (std::size_t i = static_cast<std::size_t>(t % 2); i < contents.size(); i += 2) {
        const Table& table = i % 4 < 2 ? shared : own;
        if (auto f = table.lookup(contents[i].spec); f && f->entries.size() == contents[i].frontier.entries.size()) {
          found.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }
  // Meanwhile a writer replaces the file: open readers keep their mapping of the old one.
  test::write_table(path, synthetic_contents(42, 10000, 500));
  for (auto& t : threads) t.join();
  CHECK(found.load() == 2 * static_cast<int>(contents.size()));
  CHECK(Table::open(path).size() == 2500);
}

}  // namespace
}  // namespace kriek
