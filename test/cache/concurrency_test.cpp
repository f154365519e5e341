// Several readers and writers at once: threads sharing one open Table and threads each opening their own while
// a writer adds a segment or a compaction replaces the segments, and two processes saving at once (neither
// waits or fails). Tagged [tsan]: build with -DKRIEK_TSAN=ON in its own build directory and run
// `test_cache "[tsan]"` (see README.md, "The DP table").
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include <catch2/catch.hpp>

#include "cache/compaction.h"
#include "helpers.h"

namespace kriek {
namespace {

/// Four reader threads look up every Spec of `contents` twice (half in `shared`, half in a Table of their own)
/// while `meanwhile` runs; returns how many lookups found the stored frontier.
template <class F>
int read_while(const std::filesystem::path& path, const std::vector<SpecFrontier>& contents, F meanwhile) {
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
  meanwhile();
  for (auto& t : threads) t.join();
  return found.load();
}

TEST_CASE("concurrent readers of one table see every Spec while a writer adds a segment", "[cache][tsan]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  const auto contents = synthetic_contents(41, 0, 2000);
  test::write_table(path, contents);
  const int found = read_while(path, contents, [&] { test::write_table(path, synthetic_contents(42, 10000, 500)); });
  CHECK(found == 2 * static_cast<int>(contents.size()));
  CHECK(Table::open(path).size() == 2500);
}

TEST_CASE("readers running during a compaction see every Spec", "[cache][tsan]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  const std::vector<SpecFrontier> all = test::write_segments(path, 43, 5, 1000);
  // Readers that open the table while it is compacted, too: they list the segments again when one vanishes.
  std::atomic<bool> done{false};
  std::atomic<int> reopened_found{0};
  std::thread opener([&] {
    while (!done.load()) {
      const Table t = Table::open(path);
      reopened_found.fetch_add(t.lookup(all[all.size() / 2].spec).has_value() ? 1 : -1000000);
    }
  });
  const int found = read_while(path, all, [&] { CHECK(compact_table(path).segments_after == 1); });
  done = true;
  opener.join();
  CHECK(found == 2 * static_cast<int>(all.size()));
  CHECK(reopened_found.load() > 0);
  CHECK(test::segments(path).size() == 1);
  CHECK(Table::open(path).size() == all.size());
}

TEST_CASE("two processes saving at once both succeed, each with a segment of its own", "[cache]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  // The children are forked before the first table is written: a write may leave threads behind (the
  // allocator's, the compressor's), and a fork of a threaded process can inherit a lock one of them held (a
  // child once spun for 18 minutes in tbbmalloc). They wait on a pipe until the table exists.
  int go[2];
  REQUIRE(::pipe(go) == 0);
  std::vector<pid_t> children;
  for (std::uint64_t w = 0; w < 2; ++w) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::close(go[1]);
      char byte = 0;
      if (::read(go[0], &byte, 1) != 0) ::_exit(3);  // end of file: the parent wrote the table
      try {
        // Overlapping Specs (equal frontiers: same seed and numbers) and Specs of its own.
        test::write_table(path, synthetic_contents(51, 100, 20000));
        test::write_table(path, synthetic_contents(52 + w, 100000 * (w + 1), 5000));
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    children.push_back(child);
  }
  ::close(go[0]);
  test::write_table(path, synthetic_contents(50, 0, 100));
  ::close(go[1]);
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  const Table t = Table::open(path, test::test_target(), test::test_model());
  CHECK(t.size() == 100 + 20000 + 2 * 5000);
  for (const auto& c : synthetic_contents(53, 200000, 5000)) REQUIRE(t.contains(c.spec));
  compact_table(path);
  CHECK(Table::open(path).size() == 100 + 20000 + 2 * 5000);
}

}  // namespace
}  // namespace kriek
