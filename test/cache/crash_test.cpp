// A writer or a compaction that dies mid-write leaves every Spec of the table readable: a segment appears only by
// rename(2), after it is complete and synced, and compaction deletes its inputs only after that. Tested by
// SIGKILLing a forked writer and a forked compaction, and by an injected write failure.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <thread>

#include <catch2/catch.hpp>
#include <oneapi/tbb/global_control.h>

#include "cache/compaction.h"
#include "helpers.h"

namespace kriek {
namespace {

/// Every `stride`-th Spec of `old` is in the table at `path` with its frontier.
void require_intact(const std::filesystem::path& path, const std::vector<SpecFrontier>& old,
                    std::size_t stride = 1) {
  const Table t = Table::open(path, test::test_target(), test::test_model());
  REQUIRE(t.size() >= old.size());
  for (std::size_t i = 0; i < old.size(); i += stride) {
    const auto& c = old[i];
    const std::optional<Frontier> f = t.lookup(c.spec);
    REQUIRE(f);
    REQUIRE(f->entries.size() == c.frontier.entries.size());
  }
}

/// Runs `work` in a forked child and SIGKILLs it once a temporary file of the table passes `bytes`. True when
/// it was killed mid-write (false: it finished first, and the test is inconclusive).
template <class F>
bool kill_mid_write(const std::filesystem::path& path, std::uint64_t bytes, F work) {
  // A forked child has no thread but the caller; a parallel_for in it (the writer's page compression) that found
  // the TBB workers the parent had started (its own writes before) waited for them forever, and so did the test.
  // Joining them first makes the child's first parallel algorithm start its own.
  oneapi::tbb::task_scheduler_handle workers{oneapi::tbb::attach{}};
  REQUIRE(oneapi::tbb::finalize(workers, std::nothrow));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      work();
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  bool killed = false;
  for (int i = 0; i < 60000 && !killed; ++i) {
    for (const auto& temp : test::temp_files(path)) {
      std::error_code ec;
      if (std::filesystem::file_size(temp, ec) > bytes) {
        ::kill(child, SIGKILL);
        killed = true;
        break;
      }
    }
    int status = 0;
    if (!killed && ::waitpid(child, &status, WNOHANG) == child) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // A child that never wrote enough is killed too, so that the test fails instead of waiting for it.
  if (!killed) ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  return killed && WIFSIGNALED(status);
}

TEST_CASE("SIGKILL during a write leaves the old table readable", "[cache]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  const auto old = synthetic_contents(31, 0, 2000);
  test::write_table(path, old);

  // The child adds 300000 Specs as one segment; we kill it mid-write.
  const bool killed = kill_mid_write(path, 1u << 20, [&] {
    TableWriter w(path, test::test_target(), test::test_model());
    std::mt19937_64 rng(32);
    for (std::uint64_t i = 2000; i < 302000; ++i) w.add(synthetic_spec(rng, i), synthetic_frontier(rng));
    w.commit();
  });
  INFO("the writer finished before it could be killed mid-write; the machine is too fast for this test");
  REQUIRE(killed);
  CHECK(test::temp_files(path).size() == 1);  // the half-written segment, never renamed
  CHECK(test::segments(path).size() == 1);
  require_intact(path, old);
  CHECK(Table::open(path).size() == old.size());

  // The next writer adds its segment; compaction removes the dead writer's temporary file.
  const auto more = synthetic_contents(33, 400000, 100);
  test::write_table(path, more);
  CHECK(Table::open(path).size() == old.size() + more.size());
  compact_table(path);
  CHECK(test::temp_files(path).empty());
  CHECK(test::segments(path).size() == 1);
  require_intact(path, old);
}

TEST_CASE("a failed write leaves the old table readable and no temporary file", "[cache]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  const auto old = synthetic_contents(34, 0, 1000);
  test::write_table(path, old);
  {
    TableWriter w(path, test::test_target(), test::test_model());
    for (const auto& c : synthetic_contents(35, 1000, 30000)) w.add(c.spec, c.frontier);
    CHECK_THROWS_WITH(w.commit(true, 100000), Catch::Contains("injected failure"));
  }
  CHECK(test::temp_files(path).empty());
  require_intact(path, old);
  CHECK(Table::open(path).size() == old.size());
  test::write_table(path, synthetic_contents(36, 5000, 10));
}

TEST_CASE("SIGKILL during a compaction leaves every Spec readable", "[cache]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  const std::vector<SpecFrontier> all = test::write_segments(path, 37, 4, 25000);
  REQUIRE(test::segments(path).size() == 4);
  const bool killed = kill_mid_write(path, 1u << 20, [&] { compact_table(path); });
  INFO("the compaction finished before it could be killed; the machine is too fast for this test");
  REQUIRE(killed);
  CHECK(test::segments(path).size() == 4);  // its inputs are deleted only after its output is renamed
  require_intact(path, all, 7);
  const CompactSummary c = compact_table(path);
  CHECK(c.segments_before == 4);
  CHECK(c.entries == all.size());
  CHECK(test::temp_files(path).empty());
  require_intact(path, all, 7);
}

}  // namespace
}  // namespace kriek
