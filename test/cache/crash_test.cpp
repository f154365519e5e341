// A writer that dies mid-write leaves the previous table intact: the table is replaced only by rename(2), after
// the new file is complete and synced. Tested by SIGKILLing a forked writer and by an injected write failure.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "helpers.h"

namespace kriek {
namespace {

void require_intact(const std::filesystem::path& path, const std::vector<SpecFrontier>& old) {
  const Table t = Table::open(path, test::test_target(), test::test_model());
  REQUIRE(t.size() >= old.size());
  for (const auto& c : old) {
    const std::optional<Frontier> f = t.lookup(c.spec);
    REQUIRE(f);
    REQUIRE(f->entries.size() == c.frontier.entries.size());
  }
}

TEST_CASE("SIGKILL during a write leaves the old table readable", "[cache]") {
  testing::TempDir dir;
  const auto path = dir / "t.table";
  const auto old = synthetic_contents(31, 0, 2000);
  test::write_table(path, old);

  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Add 150000 Specs (about 50 MB) and write them with the old table's; the parent kills us mid-write.
    try {
      TableWriter w(path, test::test_target(), test::test_model());
      std::mt19937_64 rng(32);
      for (std::uint64_t i = 2000; i < 152000; ++i) w.add(synthetic_spec(rng, i), synthetic_frontier(rng));
      w.commit();
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  const auto temp = temp_path(path);
  bool killed_mid_write = false;
  for (int i = 0; i < 60000; ++i) {
    std::error_code ec;
    if (std::filesystem::exists(temp, ec) && std::filesystem::file_size(temp, ec) > (1u << 20)) {
      ::kill(child, SIGKILL);
      killed_mid_write = true;
      break;
    }
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) break;  // finished before we saw it: inconclusive
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  INFO("the writer finished before it could be killed mid-write; the machine is too fast for this test");
  REQUIRE(killed_mid_write);
  REQUIRE(WIFSIGNALED(status));
  CHECK(std::filesystem::exists(temp));  // the half-written file, never renamed
  require_intact(path, old);
  CHECK(Table::open(path).size() == old.size());

  // The dead writer's lock died with it; the next writer replaces the leftover temporary file.
  const auto more = synthetic_contents(33, 200000, 100);
  test::write_table(path, more);
  CHECK_FALSE(std::filesystem::exists(temp));
  CHECK(Table::open(path).size() == old.size() + more.size());
}

TEST_CASE("a failed write leaves the old table readable and releases the lock", "[cache]") {
  testing::TempDir dir;
  const auto path = dir / "t.table";
  const auto old = synthetic_contents(34, 0, 1000);
  test::write_table(path, old);
  {
    TableWriter w(path, test::test_target(), test::test_model());
    for (const auto& c : synthetic_contents(35, 1000, 3000)) w.add(c.spec, c.frontier);
    CHECK_THROWS_WITH(w.commit(true, 100000), Catch::Contains("injected failure"));
  }
  CHECK_FALSE(std::filesystem::exists(temp_path(path)));
  require_intact(path, old);
  CHECK(Table::open(path).size() == old.size());
  test::write_table(path, synthetic_contents(36, 5000, 10));  // the lock is free again
}

}  // namespace
}  // namespace kriek
