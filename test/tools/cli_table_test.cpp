// The kriek program and its DP tables end to end: a synthesis saved and read back by query and table, the default
// table's place (one per target), and what kriek does with a table that is not one, damaged, stale or of the old
// name, run as a user would (exit status, stdout, one-line stderr).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cache/segment.h"
#include "cache/table_files.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace {

using Result = kriek::testing::CommandResult;

/// Runs kriek with `args` (shell-quoted by the caller).
Result run_kriek(const std::string& args) { return kriek::testing::run_command(std::string(KRIEK_BINARY) + " " + args); }

/// The default DP table of this machine's target under XDG_CACHE_HOME=`cache_home` (which holds no profile).
std::string default_table_in(const std::string& cache_home) {
  return kriek::default_table_path(kriek::host_target(), cache_home.c_str(), nullptr).string();
}

}  // namespace

TEST_CASE("kriek synth writes a table that kriek query and kriek table read", "[tools][table]") {
  const kriek::testing::TempDir dir;
  const std::string table = (dir / "cli_test.table").string();
  const Result cold = run_kriek("synth 'matmul 4x4x16 f32' --table " + table);
  CHECK(cold.status == 0);
  CHECK_THAT(cold.out, Contains("0 Specs read"));
  const Result warm = run_kriek("synth 'matmul 4x4x16 f32' --table " + table);
  CHECK_THAT(warm.out, Contains("0 specs solved"));
  const Result q = run_kriek("query 'matmul 4x4x16 f32' --table " + table);
  CHECK(q.status == 0);
  CHECK_THAT(q.out, Contains("bcast_fma"));
  const Result absent = run_kriek("query 'matmul 4x4x32 f32' --table " + table);
  CHECK(absent.status == 1);
  CHECK_THAT(absent.out, Contains("is not in the DP table") && Contains("kriek synth --table " + table + " adds it"));
  CHECK_THAT(run_kriek("table stats " + table).out, Contains("matmul"));
  CHECK_THAT(run_kriek("table export " + table).out, Contains("\"spec\""));
  CHECK(run_kriek("table frobnicate").status == 1);
  // A second Spec adds a segment; compact folds the two, gc bounds the size.
  CHECK(run_kriek("synth 'matmul 4x8x16 f32' --table " + table).status == 0);
  CHECK_THAT(run_kriek("table stats " + table).out, Contains("segments 2"));
  CHECK_THAT(run_kriek("table compact " + table).out, Contains("2 segments -> 1"));
  const Result gc = run_kriek("table gc " + table + " --max-size 1K");
  CHECK(gc.status == 0);
  CHECK_THAT(gc.out, Contains("gc " + table + ": "));
  CHECK_THAT(run_kriek("table gc " + table + " --max-size lots").out, Contains("--max-size 'lots' is not a byte count"));
  std::filesystem::remove_all(table);
}

TEST_CASE("a --table FILE that is not a kriek table is an error that does not advise deleting it",
          "[tools][table][errors]") {
  const kriek::testing::TempDir scratch;
  const std::string file = (scratch / "cli_not_a_table.txt").string();
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fputs("root:x:0:0:root:/root:/bin/bash\n", f);
    std::fclose(f);
  }
  for (const std::string command : {"synth 'matmul 4x4x16 f32' --table ", "query 'matmul 4x4x16 f32' --table ",
                                    "table stats "}) {
    const Result r = run_kriek(command + file);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("is not a kriek DP table") && !Contains("delete"));
  }
  CHECK(std::filesystem::file_size(file) == 32);
  std::filesystem::remove(file);
}

TEST_CASE("a corrupted default table is moved aside with a note and rebuilt", "[tools][table]") {
  const kriek::testing::TempDir scratch;
  const std::string dir = (scratch / "cli_corrupt_cache").string();
  const std::string env = "XDG_CACHE_HOME=" + dir + " ";
  const std::string synth = env + KRIEK_BINARY + " synth 'matmul 4x4x16 f32'";
  REQUIRE(kriek::testing::run_command(synth).status == 0);
  std::filesystem::path segment;
  const std::string host_table = default_table_in(dir);
  for (const auto& e : std::filesystem::directory_iterator(host_table)) {
    if (e.path().extension() == ".seg") segment = e.path();
  }
  REQUIRE(!segment.empty());
  // Every page damaged, the rest intact: found only when the search reads the root's page.
  {
    const auto seg = kriek::Segment::open(segment, host_table);
    std::FILE* f = std::fopen(segment.c_str(), "r+b");
    for (std::uint64_t p = 0; p < seg->header().page_count; ++p) {
      const kriek::PageEntry page = seg->page_entry(p);
      std::fseek(f, static_cast<long>(page.offset + page.length / 2), SEEK_SET);
      const int c = std::fgetc(f);
      std::fseek(f, static_cast<long>(page.offset + page.length / 2), SEEK_SET);
      std::fputc(c ^ 0x5a, f);
    }
    std::fclose(f);
  }
  const Result r = kriek::testing::run_command(synth);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("kriek: note: the default DP table was unusable") && Contains("checksum mismatch") &&
                        Contains("moved to " + host_table + ".corrupted"));
  CHECK(std::filesystem::exists(host_table + ".corrupted"));
  CHECK_THAT(kriek::testing::run_command(synth).out, Contains("0 specs solved"));
  // Damaged at the start (its magic): found when the table is opened.
  for (const auto& e : std::filesystem::directory_iterator(host_table)) {
    if (e.path().extension() == ".seg") {
      std::FILE* f = std::fopen(e.path().c_str(), "r+b");
      std::fputc('X', f);
      std::fclose(f);
    }
  }
  const Result again = kriek::testing::run_command(synth);
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Contains("bad magic") && Contains("moved to"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("kriek target names its default table, and a legacy one built for it is renamed to that", "[tools][table]") {
  const kriek::testing::TempDir temp;
  const std::string dir = temp.path().string();
  const std::string env = "XDG_CACHE_HOME=" + dir + " ";
  const std::string host_table = default_table_in(dir);
  CHECK_THAT(kriek::testing::run_command(env + KRIEK_BINARY + " target").out,
             Contains("default DP table " + host_table + "\n"));
  // A table under the name kriek used until 2026-11-27 (one for every target of the name), built for this one.
  const std::string legacy = dir + "/kriek/host.table";
  REQUIRE(kriek::testing::run_command(env + KRIEK_BINARY + " synth 'matmul 4x4x16 f32' --table " + legacy).status == 0);
  const Result r = kriek::testing::run_command(env + KRIEK_BINARY + " synth 'matmul 4x4x16 f32'");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("the default DP table " + legacy + " is now " + host_table) && Contains("0 specs solved"));
  CHECK_FALSE(std::filesystem::exists(legacy));
}

TEST_CASE("a stale default table is replaced with a note, a stale --table FILE is an error", "[tools][table]") {
  const kriek::testing::TempDir temp;
  const std::string dir = temp.path().string();
  std::filesystem::create_directories(dir + "/kriek");
  const std::string host_table = default_table_in(dir);
  // A table of another target at the host's default path: what an older kriek would leave behind.
  REQUIRE(run_kriek("synth 'matmul 4x4x16 f32' --target avx2 --table " + host_table).status == 0);
  const std::string env = "XDG_CACHE_HOME=" + dir + " ";
  const Result r = kriek::testing::run_command(env + KRIEK_BINARY + " synth 'matmul 4x4x16 f32'");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("the default DP table " + host_table + " is stale") && Contains("0 Specs read"));
  CHECK_THAT(run_kriek("table stats " + host_table).out, Contains("target host"));
  const Result again = kriek::testing::run_command(env + KRIEK_BINARY + " synth 'matmul 4x4x16 f32'");
  CHECK_THAT(again.out, !Contains("is stale") && Contains("0 specs solved"));
  // Named explicitly, a table of another target is the user's file: an error, and the file is left alone.
  const Result named = run_kriek("synth 'matmul 4x4x16 f32' --target avx2 --table " + host_table);
  CHECK(named.status == 1);
  CHECK_THAT(named.out, Contains("was built for target host"));
  CHECK_THAT(run_kriek("table stats " + host_table).out, Contains("target host"));
}
