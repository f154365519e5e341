// The table with the real search: a round trip keeps every decision, an Impl rebuilt from a loaded table prints
// like a freshly synthesized one, a second run does no search, a new Spec reuses shared subproblems, and merging
// two runs' tables equals one run's table, gc keeps recent roots with their closures; decisions in a table that do
// not rebuild are the table's fault (a UserError naming it), whether a query or the search rebuilds them.
#include <catch2/catch.hpp>

#include "cache/compaction.h"
#include "cache/reconstruct.h"
#include "spec/stable_hash.h"
#include "cache/table_tools.h"
#include "spec/error.h"
#include "helpers.h"
#include "impl/printer.h"
#include "synth/synthesizer.h"

namespace kriek {
namespace {

using Catch::Contains;

Spec matmul_spec(std::int64_t m, std::int64_t k, std::int64_t n) {
  auto t = [](Shape s) {
    TensorSpec x;
    x.shape = std::move(s);
    return x;
  };
  return Spec{Matmul{}, {t({m, k}), t({k, n}), t({m, n})}, false};
}

WriteSummary save(const std::filesystem::path& path, const Synthesizer& s) {
  return save_table(path, s.target(), s.model(), [&](const FrontierVisitor& v) { s.for_each_encoded(v); });
}

std::string best_text(Synthesizer& s, const Spec& spec) {
  const std::optional<ImplPtr> impl = s.best(spec, {});
  REQUIRE(impl);
  return print_impl(*impl);
}

TEST_CASE("a synthesized table round trip keeps every decision and rebuilds the same Impl", "[cache][synth]") {
  testing::TempDir dir;
  const Spec spec = matmul_spec(16, 16, 16);
  Synthesizer cold(test::test_target(), test::test_model(), {1});
  const std::string fresh = best_text(cold, spec);
  const WriteSummary w = save(dir / "t.table", cold);
  CHECK(w.entries == cold.stats().specs_solved.load());

  const Table table = Table::open(dir / "t.table", test::test_target(), test::test_model());
  cold.for_each([&](const Spec& s, const Frontier& f) {
    const std::optional<Frontier> stored = table.lookup(s);
    REQUIRE(stored);
    REQUIRE(stored->entries.size() == f.entries.size());
    for (std::size_t i = 0; i < f.entries.size(); ++i) REQUIRE(stored->entries[i] == f.entries[i]);
  });
  const std::ptrdiff_t best = cold.solve(spec).best_within({});
  CHECK(print_impl(reconstruct(spec, static_cast<std::size_t>(best), test::test_target(), table_lookup(table))) ==
        fresh);

  Synthesizer warm(test::test_target(), test::test_model(), {1});
  warm.set_table(&table);
  CHECK(best_text(warm, spec) == fresh);
  CHECK(warm.stats().specs_solved.load() == 0);  // no search at all
  CHECK(warm.stats().specs_loaded.load() == 1);  // the root; reconstruct reads the children from the table
}

TEST_CASE("a new Spec reuses every shared subproblem from the table", "[cache][synth]") {
  testing::TempDir dir;
  Synthesizer first(test::test_target(), test::test_model(), {1});
  first.solve(matmul_spec(8, 8, 8));
  save(dir / "t.table", first);
  const Table table = Table::open(dir / "t.table");

  const Spec bigger = matmul_spec(16, 8, 8);
  Synthesizer cold(test::test_target(), test::test_model(), {1});
  const std::string expected = best_text(cold, bigger);
  Synthesizer warm(test::test_target(), test::test_model(), {1});
  warm.set_table(&table);
  CHECK(best_text(warm, bigger) == expected);
  CHECK(warm.stats().specs_loaded.load() > 0);
  CHECK(warm.stats().specs_solved.load() < cold.stats().specs_solved.load());
  // Saving the warm run adds what it solved; the table is the union: every Spec of both runs.
  const WriteSummary w = save(dir / "t.table", warm);
  CHECK(w.entries == warm.stats().specs_solved.load());
  const Table after = Table::open(dir / "t.table");
  cold.for_each([&](const Spec& s, const Frontier&) { CHECK(after.contains(s)); });
}

TEST_CASE("merging two runs' tables equals the table of one run over both Spec sets", "[cache][synth]") {
  testing::TempDir dir;
  const Spec a = matmul_spec(8, 8, 8), b = matmul_spec(4, 16, 8);
  Synthesizer sa(test::test_target(), test::test_model(), {1});
  sa.solve(a);
  save(dir / "a.table", sa);
  Synthesizer sb(test::test_target(), test::test_model(), {2});  // the thread count must not matter
  sb.solve(b);
  save(dir / "b.table", sb);
  Synthesizer both(test::test_target(), test::test_model(), {1});
  both.solve(a);
  both.solve(b);
  save_table(dir / "one.table", both.target(), both.model(), [&](const FrontierVisitor& v) { both.for_each_encoded(v); },
             /*keep_existing=*/false);  // a fold, as merge is (kFoldLevel)
  merge_tables({dir / "a.table", dir / "b.table"}, dir / "merged.table");
  CHECK(test::segment_body(dir / "merged.table") == test::segment_body(dir / "one.table"));
}

/// True when every child of every entry of every Spec in `table` is in `table` (gc's closure).
bool closed(const Table& table) {
  bool ok = true;
  table.for_each([&](const Spec& spec, const Frontier& f) {
    for (const FrontierEntry& e : f.entries) {
      const Expansion ex = std::get<Expansion>(expand(e.action, spec, test::test_target()));
      for (const Spec& c : ex.children) ok = ok && table.contains(c);
    }
  });
  return ok;
}

TEST_CASE("gc keeps the most recently used roots' closures within the size", "[cache][synth]") {
  test::TempDir dir;
  const auto path = dir / "t.table";
  const Spec old_root = matmul_spec(16, 16, 16), new_root = matmul_spec(4, 8, 32);
  for (const Spec& root : {old_root, new_root}) {
    Synthesizer s(test::test_target(), test::test_model(), {1});
    s.solve(root);
    save(path, s);
    note_root_use(path, stable_hash(table_key(root)));
  }
  const std::uint64_t before = Table::open(path).file_bytes();
  const std::size_t specs_before = Table::open(path).size();
  // Ever smaller sizes: while one root is kept it is the newer one, with its closure; some size keeps only it.
  bool only_new = false;
  for (std::uint64_t max = before / 2; max > before / 64; max /= 2) {
    const auto copy = dir / ("copy" + std::to_string(max));
    std::filesystem::copy(path, copy, std::filesystem::copy_options::recursive);
    const GcSummary g = gc_table(copy, max, test::test_target(), test::test_model());
    CHECK(g.entries_before == specs_before);
    CHECK(g.entries_after < specs_before);
    CHECK(g.bytes_after <= max);
    const Table after = Table::open(copy);
    CHECK(test::segments(copy).size() == 1);
    CHECK(closed(after));
    if (after.contains(old_root)) CHECK(after.contains(new_root));
    if (after.contains(new_root) && !after.contains(old_root)) {
      only_new = true;
      Synthesizer warm(test::test_target(), test::test_model(), {1});
      warm.set_table(&after);
      REQUIRE(warm.best(new_root, {}));
      CHECK(warm.stats().specs_solved.load() == 0);
    }
  }
  CHECK(only_new);
  // A size the table is within changes nothing.
  CHECK(gc_table(path, before, test::test_target(), test::test_model()).entries_after == specs_before);
}

TEST_CASE("a table of another target cannot serve a search", "[cache][synth]") {
  testing::TempDir dir;
  test::write_table(dir / "t.table", synthetic_contents(1, 0, 5));
  const Table table = Table::open(dir / "t.table");
  Synthesizer other(named_target("scalar"), CostModel::for_target(named_target("scalar")), {1});
  CHECK_THROWS_WITH(other.set_table(&table), Catch::Contains("was built for target"));
}

TEST_CASE("decisions in a table that do not rebuild are a UserError naming it, from a query and the search",
          "[cache][synth]") {
  testing::TempDir dir;
  const Spec spec = matmul_spec(4, 4, 16);
  const auto check = [&](const FrontierEntry& e, const std::string& why) {
    const auto path = dir / "bad.table";
    Frontier f;
    f.entries.push_back(e);
    test::write_table(path, {{spec, f}}, false);
    const Table table = Table::open(path, test::test_target(), test::test_model());
    CHECK_THROWS_AS(reconstruct(spec, 0, test::test_target(), table_lookup(table)), UserError);
    CHECK_THROWS_WITH(reconstruct(spec, 0, test::test_target(), table_lookup(table)),
                      Contains(why) && Contains(path.string()) && Contains("delete it"));
    Synthesizer warm(test::test_target(), test::test_model(), {1});
    warm.set_table(&table);
    CHECK_THROWS_WITH(warm.best(spec, {}), Contains(why) && Contains(path.string()));
  };
  FrontierEntry split;  // a plain matmul cannot be split (split needs an accumulating Spec)
  split.action = Split{2};
  split.children = {0};
  check(split, "no longer applies");
  FrontierEntry tile;  // applies, but its child is not in the table
  tile.action = TileOut{{2, 16}, false};
  tile.children = {0};
  check(tile, "no frontier for");
  FrontierEntry extra = tile;  // a decision with a child more than its action makes
  extra.children = {0, 0};
  check(extra, "children but its action makes");
}

}  // namespace
}  // namespace kriek
