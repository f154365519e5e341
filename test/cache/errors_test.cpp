// Every way a table can be unusable gives its own TableError naming the table, what differs and the fix:
// missing, not a table (never "delete" it), truncated, corrupted (magic, header, fences, filter, index block, page),
// another format version or a one-file table of an older kriek, another target, cost model version, cost-model
// constants or vocabulary, disagreeing merges; a damaged default table is moved aside.
#include <cstring>

#include <catch2/catch.hpp>

#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "helpers.h"
#include "spec/error.h"

namespace kriek {
namespace {

using Catch::Contains;

struct Fixture {
  test::TempDir dir;
  std::filesystem::path path = dir / "t.table";
  std::vector<SpecFrontier> contents = synthetic_contents(21, 0, 600);
  std::filesystem::path segment;
  Fixture() {
    test::write_table(path, contents);
    segment = test::segments(path).at(0);
  }

  /// Applies `edit` to the segment's bytes.
  template <class F>
  void edit(F f) {
    std::string bytes = test::read_file(segment);
    f(bytes);
    test::write_file(segment, bytes);
  }
  void flip(std::size_t at) {
    edit([&](std::string& b) { b.at(at) ^= 0x5a; });
  }
  const SegmentHeader header() const { return Table::open(path).segments().at(0)->header(); }
  void look_up_all() const {
    const Table t = Table::open(path);
    for (const auto& c : contents) (void)t.lookup(c.spec);
  }
};

TEST_CASE("a missing table names the file and how to build one", "[cache]") {
  test::TempDir dir;
  CHECK_THROWS_WITH(Table::open(dir / "none.table"), Contains("no DP table at") && Contains("kriek synth --table"));
}

TEST_CASE("a truncated segment is reported as truncated, with both sizes", "[cache]") {
  Fixture f;
  const std::uint64_t full = std::filesystem::file_size(f.segment);
  std::filesystem::resize_file(f.segment, full / 2);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("is corrupted (segment " + f.segment.filename().string() +
                                                  ": truncated: " + std::to_string(full / 2) + " of its " +
                                                  std::to_string(full) + " bytes") &&
                                             Contains("delete " + f.path.string()));
  std::filesystem::resize_file(f.segment, 30);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("truncated") && Contains("its header alone needs"));
  std::filesystem::resize_file(f.segment, 10);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("truncated") && Contains("16-byte prefix"));
}

TEST_CASE("a segment that is not a segment has a bad magic", "[cache]") {
  Fixture f;
  f.flip(0);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("is corrupted (segment") && Contains("bad magic"));
}

TEST_CASE("a damaged header fails its checksum", "[cache]") {
  Fixture f;
  f.flip(kPrefixBytes + 3);
  CHECK_THROWS_WITH(Table::open(f.path), Contains("header checksum mismatch)"));
}

TEST_CASE("damaged fences, page table or filter checksums fail their checksum at open", "[cache]") {
  Fixture f;
  const auto h = f.header();
  const std::string message = "index fences, page table or filter checksum mismatch)";
  f.flip(h.fences_offset + 1);
  CHECK_THROWS_WITH(Table::open(f.path), Contains(message));
  f.flip(h.fences_offset + 1);
  f.flip(h.page_table_offset + 3);
  CHECK_THROWS_WITH(Table::open(f.path), Contains(message));
  f.flip(h.page_table_offset + 3);
  f.flip(h.page_table_offset + kPageEntryBytes * h.page_count + 2);  // the first filter chunk's checksum
  CHECK_THROWS_WITH(Table::open(f.path), Contains(message));
}

TEST_CASE("a damaged filter chunk fails its checksum when a query reads it", "[cache]") {
  Fixture f;
  f.flip(f.header().filter_offset + 7);
  CHECK_THROWS_WITH(f.look_up_all(), Contains("filter chunk 0 checksum mismatch)"));
}

TEST_CASE("a damaged index block fails its checksum when a query reads it", "[cache]") {
  Fixture f;
  f.flip(f.header().index_offset + 5);
  CHECK_THROWS_WITH(f.look_up_all(), Contains("index block 0 checksum mismatch)"));
}

TEST_CASE("a damaged page fails its checksum when it is read", "[cache]") {
  Fixture f;
  const auto h = f.header();
  f.flip(h.pages_offset + (h.fences_offset - h.pages_offset) / 2);
  CHECK_THROWS_WITH(f.look_up_all(), Contains("checksum mismatch") && Contains("page"));
  CHECK_THROWS_WITH(table_stats(Table::open(f.path)), Contains("checksum mismatch"));
  try {
    f.look_up_all();
  } catch (const TableError& e) {
    CHECK(e.kind == TableError::Kind::corrupted);
  }
}

TEST_CASE("bytes past the end are corruption", "[cache]") {
  Fixture f;
  f.edit([](std::string& b) { b += "junk"; });
  CHECK_THROWS_WITH(Table::open(f.path), Contains("4 bytes past its end)"));
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

TEST_CASE("a one-file table of an older kriek is named as such", "[cache]") {
  test::TempDir dir;
  test::write_file(dir / "old.table", std::string(kTableMagic, 8) + std::string(100, '\0'));
  CHECK_THROWS_WITH(Table::open(dir / "old.table"), Contains("one-file table of an older kriek") &&
                                                        Contains("delete " + (dir / "old.table").string()));
  // Replacing it (a stale default table, or merge -o) is allowed: it is a table.
  test::write_table(dir / "old.table", synthetic_contents(1, 0, 3), /*keep_existing=*/false);
  CHECK(Table::open(dir / "old.table").size() == 3);
}

/// True when `f` throws TableError{not_a_table} saying so, without advising to delete anything.
template <class F>
bool not_a_table_error(F f) {
  try {
    f();
  } catch (const TableError& e) {
    const std::string message = e.what();
    INFO(message);
    return e.kind == TableError::Kind::not_a_table && message.find("is not a kriek DP table") != std::string::npos &&
           message.find("delete") == std::string::npos;
  }
  return false;
}

TEST_CASE("a file named as a table that is not one is an error that never advises deleting it", "[cache]") {
  test::TempDir dir;
  const auto passwd = dir / "passwd";
  test::write_file(passwd, "root:x:0:0:root:/root:/bin/bash\n");
  CHECK(not_a_table_error([&] { Table::open(passwd); }));
  CHECK(not_a_table_error([&] { open_table_if_exists(passwd, test::test_target(), test::test_model()); }));
  CHECK(not_a_table_error([&] { test::write_table(passwd, synthetic_contents(1, 0, 3)); }));
  CHECK(not_a_table_error([&] { test::write_table(passwd, synthetic_contents(1, 0, 3), false); }));
  CHECK(test::read_file(passwd) == "root:x:0:0:root:/root:/bin/bash\n");
  // A directory of other things is not a table either, and stays as it was.
  std::filesystem::create_directories(dir / "photos");
  test::write_file(dir / "photos" / "cat.jpg", "meow");
  CHECK(not_a_table_error([&] { test::write_table(dir / "photos", synthetic_contents(1, 0, 3)); }));
  CHECK(test::read_file(dir / "photos" / "cat.jpg") == "meow");
}

TEST_CASE("a damaged default table is moved aside with a note", "[cache]") {
  Fixture f;
  f.flip(0);
  bool stale = true;
  std::string note;
  CHECK_FALSE(open_default_table(f.path, test::test_target(), test::test_model(), stale, note));
  CHECK_FALSE(stale);
  CHECK_THAT(note, Contains("bad magic") && Contains("moved to " + f.path.string() + ".corrupted"));
  CHECK_FALSE(std::filesystem::exists(f.path));
  CHECK(std::filesystem::exists(f.path.string() + ".corrupted"));
  // The next save builds a new one.
  test::write_table(f.path, synthetic_contents(1, 0, 3));
  CHECK(Table::open(f.path).size() == 3);
}

TEST_CASE("a default table of another kriek is stale, not an error", "[cache]") {
  Fixture f;
  f.edit([](std::string& b) {
    const std::uint32_t old = 0;
    std::memcpy(b.data() + 8, &old, 4);
  });
  bool stale = false;
  std::string note;
  CHECK_FALSE(open_default_table(f.path, test::test_target(), test::test_model(), stale, note));
  CHECK(stale);
  CHECK_THAT(note, Contains("is stale"));
}

/// Writes a table whose identity differs from the test target's and model's by `change`.
template <class F>
std::string identity_error(F change) {
  test::TempDir dir;
  TableIdentity id = TableIdentity::of(test::test_target(), test::test_model());
  change(id);
  TableWriter w(dir / "t.table", id);
  w.add(synthetic_contents(1, 0, 1)[0].spec, synthetic_contents(1, 0, 1)[0].frontier);
  w.commit();
  // A writer of this target cannot add to it: its segment would not match.
  CHECK_THROWS_AS(test::write_table(dir / "t.table", synthetic_contents(2, 0, 1)), TableError);
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

TEST_CASE("merging tables of different targets is refused naming both files", "[cache]") {
  test::TempDir dir;
  test::write_table(dir / "a.table", synthetic_contents(1, 0, 10));
  TableIdentity other = TableIdentity::of(named_target("scalar"), test::test_model());
  {
    TableWriter w(dir / "b.table", other);
    w.add(synthetic_contents(2, 0, 1)[0].spec, synthetic_contents(2, 0, 1)[0].frontier);
    w.commit();
  }
  CHECK_THROWS_WITH(merge_tables({dir / "a.table", dir / "b.table"}, dir / "m.table"),
                    Contains("cannot merge " + (dir / "b.table").string()) && Contains("built for target"));
}

TEST_CASE("merging tables whose frontiers disagree is refused", "[cache]") {
  test::TempDir dir;
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
