// Writing and reading tables: a round trip keeps every decision, queries find exactly the stored Specs, a second
// write adds a segment of only its new Specs, a segment's filter passes the stored Specs and few others, merge
// and compaction give the union, gc keeps closures within a size, and stats and export describe the table.
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "cache/compaction.h"
#include "helpers.h"
#include "spec/stable_hash.h"

namespace kriek {
namespace {

void require_same_frontier(const Frontier& a, const Frontier& b) {
  REQUIRE(a.entries.size() == b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) REQUIRE(a.entries[i] == b.entries[i]);
}

TEST_CASE("a table round trip keeps every decision", "[cache]") {
  test::TempDir dir;
  const auto contents = synthetic_contents(1, 0, 3000);  // seed 1; several index blocks
  const WriteSummary s = test::write_table(dir / "t.table", contents);
  CHECK(s.entries == 3000);
  CHECK(s.segments == 1);
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
  test::TempDir dir;
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

TEST_CASE("a segment's Bloom filter passes every stored Spec and about 1% of absent hashes", "[cache]") {
  test::TempDir dir;
  const auto contents = synthetic_contents(4, 0, 3000);
  test::write_table(dir / "t.table", contents);
  const Table t = Table::open(dir / "t.table");
  const Segment& segment = *t.segments().at(0);
  for (const auto& c : contents) REQUIRE(segment.may_contain(stable_hash(table_key(c.spec))));
  const std::uint64_t seed = 15;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int passed = 0;
  const int probes = 20000;
  for (int i = 0; i < probes; ++i) passed += segment.may_contain(rng());
  CHECK(passed > 0);                 // a filter, not an index: some absent hashes pass
  CHECK(passed < probes * 3 / 100);  // 10 bits per Spec, 7 probes in a 512-bit line: about 1%
}

TEST_CASE("an empty table opens and finds nothing", "[cache]") {
  test::TempDir dir;
  test::write_table(dir / "t.table", {});
  const Table t = Table::open(dir / "t.table");
  CHECK(t.size() == 0);
  CHECK_FALSE(t.lookup(synthetic_contents(3, 0, 1)[0].spec));
}

TEST_CASE("a second write adds a segment of its new Specs only, and the table is the union", "[cache]") {
  test::TempDir dir;
  const auto a = synthetic_contents(4, 0, 400);
  std::vector<SpecFrontier> b(a.begin() + 300, a.end());
  for (auto& c : b) c.frontier.entries.back().cost += 1;
  test::write_table(dir / "t.table", a);
  // Equal Specs with other frontiers: the writer must refuse to pick one silently.
  CHECK_THROWS_WITH(test::write_table(dir / "t.table", b), Catch::Contains("disagree"));
  const std::uint64_t before = std::filesystem::file_size(test::segments(dir / "t.table").at(0));
  // 300 new Specs and 100 already there: the segment holds the 300, and costs about their share of bytes.
  auto b_only = synthetic_contents(5, 400, 300);
  b_only.insert(b_only.end(), a.begin(), a.begin() + 100);
  const WriteSummary s = test::write_table(dir / "t.table", b_only);
  CHECK(s.entries == 300);
  CHECK(s.segments == 2);
  CHECK(s.bytes < before);
  CHECK(std::filesystem::file_size(test::segments(dir / "t.table").at(0)) == before);  // not rewritten
  const Table t = Table::open(dir / "t.table");
  CHECK(t.size() == 700);
  for (const auto& c : a) CHECK(t.contains(c.spec));
  for (const auto& c : b_only) CHECK(t.contains(c.spec));
}

TEST_CASE("a writer told its Specs missed a table still checks the segments added since", "[cache]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  test::write_table(path, synthetic_contents(4, 0, 100));
  const Table searched = Table::open(path);  // what a search consulted
  const auto later = synthetic_contents(5, 100, 50);  // another writer adds these meanwhile
  test::write_table(path, later);
  std::vector<SpecFrontier> disagreeing(later.begin(), later.begin() + 10);
  for (auto& c : disagreeing) c.frontier.entries.back().cost += 1;
  {
    TableWriter w(path, test::test_target(), test::test_model());
    w.missed_in(searched);
    for (const auto& c : disagreeing) w.add(c.spec, c.frontier);
    CHECK_THROWS_WITH(w.commit(), Catch::Contains("disagree"));
  }
  TableWriter w(path, test::test_target(), test::test_model());
  w.missed_in(searched);
  for (const auto& c : later) w.add(c.spec, c.frontier);
  for (const auto& c : synthetic_contents(6, 150, 20)) w.add(c.spec, c.frontier);
  const WriteSummary s = w.commit();
  CHECK(s.entries == 20);  // the 50 the other writer added are not written twice
  CHECK(Table::open(path).size() == 170);
}

TEST_CASE("a save that adds nothing writes nothing", "[cache]") {
  test::TempDir dir;
  const auto a = synthetic_contents(4, 0, 50);
  test::write_table(dir / "t.table", a);
  const WriteSummary s = test::write_table(dir / "t.table", a);
  CHECK(s.entries == 0);
  CHECK(s.bytes == 0);
  CHECK(test::segments(dir / "t.table").size() == 1);
}

TEST_CASE("past kMaxSegments a write compacts the small segments, compact folds all into one", "[cache]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  std::vector<SpecFrontier> all;
  for (std::uint64_t i = 0; i <= kMaxSegments; ++i) {
    const auto part = synthetic_contents(60 + i, i * 100, i == 0 ? 5000 : 100);
    const WriteSummary s = test::write_table(path, part);
    all.insert(all.end(), part.begin(), part.end());
    CHECK(s.segments <= kMaxSegments);
  }
  const auto segments = test::segments(path);
  CHECK(segments.size() <= kMaxSegments / 2 + 1);
  CHECK(segments.size() >= 2);  // the big first segment was not rewritten for small additions
  CHECK(Table::open(path).size() == all.size());
  const CompactSummary c = compact_table(path);
  CHECK(c.segments_after == 1);
  CHECK(c.entries == all.size());
  const Table t = Table::open(path);
  for (const auto& x : all) REQUIRE(t.lookup(x.spec)->entries == x.frontier.entries);
}

TEST_CASE("table stats count Specs per op kind and frontier sizes", "[cache]") {
  test::TempDir dir;
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
  CHECK(s.file_bytes == std::filesystem::file_size(test::segments(dir / "t.table").at(0)));
  std::ostringstream out;
  print_stats(out, Table::open(dir / "t.table"), s);
  CHECK_THAT(out.str(), Catch::Contains("specs 800") && Catch::Contains("bytes per spec"));
}

TEST_CASE("export writes one JSON object per Spec", "[cache]") {
  test::TempDir dir;
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

TEST_CASE("the default table lives in the per-user cache directory, one per target fingerprint", "[cache]") {
  const std::string file = test::test_target().name + "-" + hex16(test::test_target().fingerprint()) + ".table";
  CHECK(default_table_path(test::test_target(), "/x/cache", "/home/u") == "/x/cache/kriek/" + file);
  CHECK(default_table_path(test::test_target(), "", "/home/u") == "/home/u/.cache/kriek/" + file);
  CHECK(default_table_path(test::test_target(), nullptr, "/home/u") == "/home/u/.cache/kriek/" + file);
  CHECK_THROWS_WITH(default_table_path(test::test_target(), nullptr, ""),
                    Catch::Contains("neither XDG_CACHE_HOME nor HOME is set") && Catch::Contains("--table FILE"));
  // Another target (here the same hardware on one core, as `taskset -c 0` detects it) has a table of its own.
  Target one_core = test::test_target();
  one_core.cores = test::test_target().cores + 1;
  CHECK(default_table_path(one_core, "/x/cache", nullptr) !=
        default_table_path(test::test_target(), "/x/cache", nullptr));
}

TEST_CASE("a legacy default table is renamed to the new name only when built for this target and model", "[cache]") {
  test::TempDir dir;
  const std::filesystem::path path = default_table_path(test::test_target(), dir.path().c_str(), nullptr);
  const std::filesystem::path legacy = legacy_default_table_path(test::test_target(), path.parent_path());
  CHECK(legacy == dir / "kriek" / (test::test_target().name + ".table"));
  CHECK_FALSE(adopt_legacy_table(path, test::test_target(), test::test_model()));  // neither exists
  const auto contents = synthetic_contents(6, 0, 50);
  test::write_table(legacy, contents);
  // Built for another cost model: left where it is.
  CostModel other = test::test_model();
  other.vector_fma += 1;
  CHECK_FALSE(adopt_legacy_table(path, test::test_target(), other));
  CHECK(std::filesystem::exists(legacy));
  CHECK_FALSE(std::filesystem::exists(path));
  // Built for this one: renamed, every Spec still there.
  CHECK(adopt_legacy_table(path, test::test_target(), test::test_model()));
  CHECK_FALSE(std::filesystem::exists(legacy));
  const Table t = Table::open(path, test::test_target(), test::test_model());
  CHECK(t.size() == contents.size());
  // Once the new one exists, a legacy one is never adopted over it.
  test::write_table(legacy, contents);
  CHECK_FALSE(adopt_legacy_table(path, test::test_target(), test::test_model()));
  CHECK(std::filesystem::exists(legacy));
}

}  // namespace
}  // namespace kriek
