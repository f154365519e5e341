// Writing and reading tables: a round trip keeps every decision, queries find exactly the stored Specs, a second
// write keeps the first's Specs, merge is the union, and stats and export describe the table.
#include <sstream>

#include <catch2/catch.hpp>

#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "helpers.h"

namespace kriek {
namespace {

void require_same_frontier(const Frontier& a, const Frontier& b) {
  REQUIRE(a.entries.size() == b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) REQUIRE(a.entries[i] == b.entries[i]);
}

TEST_CASE("a table round trip keeps every decision", "[cache]") {
  testing::TempDir dir;
  const auto contents = synthetic_contents(1, 0, 3000);  // seed 1; several index blocks
  const WriteSummary s = test::write_table(dir / "t.table", contents);
  CHECK(s.entries == 3000);
  CHECK(s.added == 3000);
  const Table t = Table::open(dir / "t.table", test::test_target(), test::test_model());
  CHECK(t.size() == 3000);
  for (const auto& c : contents) {
    const std::optional<Frontier> f = t.lookup(c.spec);
    REQUIRE(f);
    require_same_frontier(*f, c.frontier);
  }
  std::size_t visited = 0;
  t.for_each([&](const Spec&, const Frontier&) { ++visited; });
  CHECK(visited == 3000);
}

TEST_CASE("a Spec that is not in the table is not found", "[cache]") {
  testing::TempDir dir;
  test::write_table(dir / "t.table", synthetic_contents(2, 0, 500));
  const Table t = Table::open(dir / "t.table");
  for (const auto& c : synthetic_contents(2, 500, 200)) CHECK_FALSE(t.lookup(c.spec));
  Spec other = synthetic_contents(2, 0, 1)[0].spec;
  other.operands[0].contiguous = !other.operands[0].contiguous;  // one bit away from a stored Spec
  CHECK_FALSE(t.lookup(other));
  // A flag canonical_spec normalizes (too little work for serial_only to matter) finds the stored Spec.
  Spec same = synthetic_contents(2, 0, 1)[0].spec;
  same.serial_only = !same.serial_only;
  REQUIRE(t.lookup(same));
  CHECK(t.lookup(same)->entries == t.lookup(synthetic_contents(2, 0, 1)[0].spec)->entries);
}

TEST_CASE("an empty table opens and finds nothing", "[cache]") {
  testing::TempDir dir;
  test::write_table(dir / "t.table", {});
  const Table t = Table::open(dir / "t.table");
  CHECK(t.size() == 0);
  CHECK_FALSE(t.lookup(synthetic_contents(3, 0, 1)[0].spec));
}

TEST_CASE("a second write keeps the first write's Specs (the union)", "[cache]") {
  testing::TempDir dir;
  const auto a = synthetic_contents(4, 0, 400);
  std::vector<SpecFrontier> b(a.begin() + 300, a.end());
  for (auto& c : b) c.frontier.entries.back().cost += 1;
  test::write_table(dir / "t.table", a);
  // Equal Specs with other frontiers: the writer must refuse to pick one silently.
  CHECK_THROWS_WITH(test::write_table(dir / "t.table", b), Catch::Contains("disagree"));
  const auto b_only = synthetic_contents(5, 400, 300);
  const WriteSummary s = test::write_table(dir / "t.table", b_only);
  CHECK(s.entries == 700);
  CHECK(s.added == 300);
  const Table t = Table::open(dir / "t.table");
  for (const auto& c : a) CHECK(t.contains(c.spec));
  for (const auto& c : b_only) CHECK(t.contains(c.spec));
}

TEST_CASE("merging two partial tables equals writing both in one go, byte for byte", "[cache]") {
  testing::TempDir dir;
  auto all = synthetic_contents(6, 0, 1000);
  std::vector<SpecFrontier> a(all.begin(), all.begin() + 600), b(all.begin() + 400, all.end());
  test::write_table(dir / "a.table", a);
  test::write_table(dir / "b.table", b);
  test::write_table(dir / "one.table", all);
  const WriteSummary s = merge_tables({dir / "a.table", dir / "b.table"}, dir / "merged.table");
  CHECK(s.entries == 1000);
  CHECK(test::read_file(dir / "merged.table") == test::read_file(dir / "one.table"));
}

TEST_CASE("table stats count Specs per op kind and frontier sizes", "[cache]") {
  testing::TempDir dir;
  const auto contents = synthetic_contents(8, 0, 800);
  test::write_table(dir / "t.table", contents);
  const Table t = Table::open(dir / "t.table");
  const TableStats s = table_stats(t);
  CHECK(s.entries == 800);
  std::uint64_t ops = 0, sizes = 0, entries = 0;
  for (const auto& [op, n] : s.per_op) ops += n;
  for (const auto& [size, n] : s.frontier_sizes) sizes += n, entries += size * n;
  CHECK(ops == 800);
  CHECK(sizes == 800);
  CHECK(entries == s.frontier_entries);
  CHECK(s.per_op.count("matmul") == 1);
  CHECK(s.file_bytes == std::filesystem::file_size(dir / "t.table"));
  std::ostringstream out;
  print_stats(out, Table::open(dir / "t.table"), s);
  CHECK_THAT(out.str(), Catch::Contains("specs 800") && Catch::Contains("bytes per spec"));
}

TEST_CASE("export writes one JSON object per Spec", "[cache]") {
  testing::TempDir dir;
  test::write_table(dir / "t.table", synthetic_contents(9, 0, 50));
  std::ostringstream out;
  export_json_lines(Table::open(dir / "t.table"), out);
  std::istringstream lines(out.str());
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    CHECK(line.rfind("{\"spec\":\"", 0) == 0);
    CHECK_THAT(line, Catch::Contains("\"entries\":[{\"action\":") && Catch::Contains("\"peak\":{\"GL\":"));
    CHECK(line.back() == '}');
  }
  CHECK(n == 50);
}

TEST_CASE("the default table lives in the per-user cache directory", "[cache]") {
  const std::string file = test::test_target().name + ".table";
  CHECK(default_table_path(test::test_target(), "/x/cache", "/home/u") == "/x/cache/kriek/" + file);
  CHECK(default_table_path(test::test_target(), "", "/home/u") == "/home/u/.cache/kriek/" + file);
  CHECK(default_table_path(test::test_target(), nullptr, "/home/u") == "/home/u/.cache/kriek/" + file);
  CHECK_THROWS_WITH(default_table_path(test::test_target(), nullptr, ""),
                    Catch::Contains("neither XDG_CACHE_HOME nor HOME is set") && Catch::Contains("--table FILE"));
}

}  // namespace
}  // namespace kriek
