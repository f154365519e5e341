// Every way a table file can be unusable gives its own UserError naming the file, what differs and the fix:
// missing, truncated, corrupted (magic, header, fences, index block, record), another format version, another
// target, cost model version, cost-model constants or vocabulary, a locked writer, disagreeing merges.
#include <unistd.h>

#include <cstring>

#include <catch2/catch.hpp>

#include "cache/table_tools.h"
#include "helpers.h"
#include "spec/error.h"

namespace kriek {
namespace {

using Catch::Contains;

struct Fixture {
  testing::TempDir dir;
  std::filesystem::path path = dir / "t.table";
  std::vector<SpecFrontier> contents = synthetic_contents(21, 0, 600);
  Fixture() { test::write_table(path, contents); }

  /// Applies `edit` to the file's bytes.
  template <class F>
  void edit(F f) {
    std::string bytes = test::read_file(path);
    f(bytes);
    test::write_file(path, bytes);
  }
  void flip(std::size_t at) {
    edit([&](std::string& b) { b.at(at) ^= 0x5a; });
  }
  const TableHeader header() const { return Table::open(path).header(); }
  void look_up_all() const {
    const Table t = Table::open(path);
    for (const auto& c : contents) (void)t.lookup(c.spec);
  }
};

TEST_CASE("a missing table names the file and how to build one", "[cache]") {
  testing::TempDir dir;
  CHECK_THROWS_WITH(Table::open(dir / "none.table"), Contains("no DP table at") && Contains("kriek synth --table"));
}

TEST_CASE("a truncated table is reported as truncated, with both sizes", "[cache]") {
  Fixture f;
  const std::uint64_t full = std::filesystem::file_size(f.path);
  std::filesystem::resize_file(f.path, full / 2);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("is truncated: " + std::to_string(full / 2) + " of its " +
                                                  std::to_string(full) + " bytes") &&
                                             Contains("delete " + f.path.string()));
  std::filesystem::resize_file(f.path, 30);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("truncated") && Contains("its header alone needs"));
  std::filesystem::resize_file(f.path, 10);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("truncated") && Contains("16-byte prefix"));
}

TEST_CASE("a file that is not a table has a bad magic", "[cache]") {
  Fixture f;
  f.flip(0);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("is corrupted (bad magic"));
}

TEST_CASE("a damaged header fails its checksum", "[cache]") {
  Fixture f;
  f.flip(kPrefixBytes + 3);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("corrupted (header checksum mismatch)"));
}

TEST_CASE("damaged fences fail their checksum at open", "[cache]") {
  Fixture f;
  f.flip(f.header().fences_offset + 1);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("corrupted (index fences checksum mismatch)"));
}

TEST_CASE("a damaged index block fails its checksum when a query reads it", "[cache]") {
  Fixture f;
  f.flip(f.header().index_offset + 5);
  CHECK_THROWS_WITH(f.look_up_all(), Contains("corrupted (index block 0 checksum mismatch)"));
}

TEST_CASE("a damaged record fails its checksum when it is read", "[cache]") {
  Fixture f;
  const auto h = f.header();
  f.flip(h.records_offset + (h.file_size - h.records_offset) / 2);
  CHECK_THROWS_WITH(f.look_up_all(), Contains("checksum mismatch") && Contains("record"));
  CHECK_THROWS_WITH(table_stats(Table::open(f.path)), Contains("checksum mismatch"));
}

TEST_CASE("bytes past the end are corruption", "[cache]") {
  Fixture f;
  f.edit([](std::string& b) { b += "junk"; });
  CHECK_THROWS_WITH(Table::open(f.path), Contains("corrupted (4 bytes past its end)"));
}

TEST_CASE("a table of another format version names both versions", "[cache]") {
  Fixture f;
  f.edit([](std::string& b) {
    const std::uint32_t old = 0;
    std::memcpy(b.data() + 8, &old, 4);
  });
  CHECK_THROWS_WITH(Table::open(f.path), Contains("has format version 0 but this kriek reads version " +
                                                  std::to_string(kTableFormatVersion)));
}

/// Writes a table whose identity differs from the test target's and model's by `change`.
template <class F>
std::string identity_error(F change) {
  testing::TempDir dir;
  TableIdentity id = TableIdentity::of(test::test_target(), test::test_model());
  change(id);
  TableWriter w(dir / "t.table", id);
  w.add(synthetic_contents(1, 0, 1)[0].spec, synthetic_contents(1, 0, 1)[0].frontier);
  w.commit();
  try {
    Table::open(dir / "t.table", test::test_target(), test::test_model());
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("a table of another target names both targets and fingerprints", "[cache]") {
  const Target other = named_target("scalar");
  const std::string message = identity_error([&](TableIdentity& id) {
    id.target_name = other.name;
    id.target_fingerprint = other.fingerprint();
  });
  CHECK_THAT(message, Contains("was built for target " + other.name) &&
                          Contains("this run targets " + test::test_target().name) && Contains("fingerprint 0x"));
}

TEST_CASE("a table of another cost model version says its costs are stale", "[cache]") {
  const std::string message = identity_error([](TableIdentity& id) { ++id.model_version; });
  CHECK_THAT(message, Contains("cost model version " + std::to_string(test::test_model().version + 1)) &&
                          Contains("stale"));
}

TEST_CASE("a table of other cost-model constants names both fingerprints", "[cache]") {
  CostModel recalibrated = test::test_model();
  recalibrated.vector_fma += 1;
  const std::string message =
      identity_error([&](TableIdentity& id) { id.model_fingerprint = recalibrated.fingerprint(); });
  CHECK_THAT(message, Contains("other cost-model constants") && Contains("recalibrated"));
}

TEST_CASE("a table of another vocabulary is refused", "[cache]") {
  const std::string message = identity_error([](TableIdentity& id) { id.vocabulary ^= 1; });
  CHECK_THAT(message, Contains("another vocabulary"));
}

TEST_CASE("a second writer gets the lock error with the holder's pid", "[cache]") {
  testing::TempDir dir;
  TableWriter first(dir / "t.table", test::test_target(), test::test_model());
  CHECK_THROWS_WITH(TableWriter(dir / "t.table", test::test_target(), test::test_model()),
                    Contains("is being written by another kriek (pid " + std::to_string(::getpid())) &&
                        Contains((dir / "t.table.lock").string()));
  first.commit();
  TableWriter second(dir / "t.table", test::test_target(), test::test_model());  // released by commit
  second.commit();
}

TEST_CASE("merging tables of different targets is refused naming both files", "[cache]") {
  testing::TempDir dir;
  test::write_table(dir / "a.table", synthetic_contents(1, 0, 10));
  TableIdentity other = TableIdentity::of(named_target("scalar"), test::test_model());
  {
    TableWriter w(dir / "b.table", other);
    w.commit();
  }
  CHECK_THROWS_WITH(merge_tables({dir / "a.table", dir / "b.table"}, dir / "m.table"),
                    Contains("cannot merge " + (dir / "b.table").string()) && Contains("built for target"));
}

TEST_CASE("merging tables whose frontiers disagree is refused", "[cache]") {
  testing::TempDir dir;
  auto a = synthetic_contents(1, 0, 10);
  auto b = a;
  b[4].frontier.entries[0].cost += 1;
  test::write_table(dir / "a.table", a);
  test::write_table(dir / "b.table", b);
  CHECK_THROWS_WITH(merge_tables({dir / "a.table", dir / "b.table"}, dir / "m.table"),
                    Contains("two frontiers of one Spec disagree"));
}

}  // namespace
}  // namespace kriek
