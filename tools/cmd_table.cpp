// `kriek query SPEC` and `kriek table stats|merge|export|compact|gc`: answers from the persisted DP table without
// search, and its maintenance. The table functions are cache/'s; this file reads the arguments and the
// environment, prints and exits.
#include <cctype>
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "cache/compaction.h"
#include "cache/reconstruct.h"
#include "cache/tuned.h"
#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "spec/text.h"
#include "tools/command.h"
#include "tools/synthesis.h"

namespace kriek::tools {

std::filesystem::path default_table_path(const Target& target) {
  const std::filesystem::path path =
      kriek::default_table_path(target, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (adopt_legacy_table(path, target, CostModel::for_target(target))) {
    std::cerr << "kriek: note: the default DP table " << legacy_default_table_path(target, path.parent_path()).string()
              << " is now " << path.string() << " (one table per target as detected)\n";
  }
  return path;
}

namespace {

/// Prints the frontier of `spec` in the table at `path` (up to `top_k` entries, 0 = all: cost, peak per level,
/// action), marks the cheapest entry that fits `limits`, and prints its Impl rebuilt from the table. UserError
/// when the Spec is not in the table or no entry fits.
void query(const std::filesystem::path& path, const Spec& spec, const Target& target, const MemoryUse& limits,
           std::size_t top_k) {
  const CostModel model = CostModel::for_target(target);
  const Table table = Table::open(path, target, model);
  const std::optional<Frontier> f = table.lookup(spec);
  if (!f) {
    user_error(spec, " is not in the DP table ", path.string(), "; kriek synth --table ", path.string(),
               " adds it");
  }
  const std::ptrdiff_t best = f->best_within(limits);
  std::cout << "# " << spec << "\n# frontier of " << f->entries.size() << " entries (cost in 1/16 cycles)\n";
  const std::size_t shown = top_k == 0 ? f->entries.size() : std::min(top_k, f->entries.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const FrontierEntry& e = f->entries[i];
    std::cout << (static_cast<std::ptrdiff_t>(i) == best ? "* " : "  ") << i << "  cost " << e.cost << "  peak "
              << e.peak << "  " << action_text(e.action, spec) << "\n";
  }
  if (best < 0) user_error("no Impl of ", spec, " in ", path.string(), " fits the memory limits ", limits);
  // A choice kriek tune measured wins over the cheapest predicted.
  const ImplPtr pick = reconstruct(spec, static_cast<std::size_t>(best), target, table_lookup(table));
  if (const std::optional<TunedRecord> tuned = find_tuned(path, target, model, spec, limits)) {
    if (const ImplPtr impl = rebuild_tuned(spec, *tuned, pick, target, table_lookup(table), table)) {
      std::cout << std::setprecision(3) << "# tuned: the fastest measured by kriek tune, " << tuned->seconds * 1e6
                << " us per call against " << tuned->pick_seconds * 1e6 << " us for entry " << best
                << " (predicted cost " << tuned->decision.cost << ", " << action_text(tuned->decision.action, spec)
                << ")\n"
                << print_impl(impl);
      return;
    }
  }
  std::cout << "# best within limits: entry " << best << "\n"
            << print_impl(pick);
}

}  // namespace

int run_query(const std::vector<std::string>& raw) {
  const Args args =
      parse_args(raw, {"--target", "--profile", "--memory", "--table"}, {"--frontier", "--no-profile", "--sparse"});
  if (args.positional.size() != 1) {
    user_error("usage: kriek query SPEC [--table FILE] [--memory ...] [--frontier] [--sparse]");
  }
  const Target target = command_target(args);
  const Spec spec = parse_spec(args.positional[0], target);
  const MemoryUse limits = command_limits(args, target);
  // The table a search under these limits (and sparse, with --sparse) kept.
  const std::filesystem::path path =
      search_table_path(args.get("--table") ? std::filesystem::path(*args.get("--table")) : default_table_path(target),
                        SynthOptions{.sparse = args.has("--sparse") ? std::optional<SparseGrid>(SparseGrid{})
                                                                    : std::nullopt,
                                     .every_class = cuts_registers(limits, target)});
  query(path, spec, target, limits, args.has("--frontier") ? 0 : 1);
  return 0;
}

namespace {

constexpr const char* kTableUsage =
    "kriek table stats FILE | merge IN... -o OUT | export FILE | compact FILE | gc FILE --max-size SIZE "
    "[--target T]";

}  // namespace

int run_table(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"-o", "--max-size", "--target", "--profile"}, {"--no-profile"});
  const auto& p = args.positional;
  if (p.empty()) user_error("usage: ", kTableUsage);
  if (p[0] == "stats" && p.size() == 2) {
    const Table table = Table::open(p[1]);
    print_stats(std::cout, table, table_stats(table));
    return 0;
  }
  if (p[0] == "export" && p.size() == 2) {
    export_json_lines(Table::open(p[1]), std::cout);
    return 0;
  }
  if (p[0] == "merge" && p.size() >= 2 && args.get("-o")) {
    const std::filesystem::path output = *args.get("-o");
    const WriteSummary s = merge_tables(std::vector<std::filesystem::path>(p.begin() + 1, p.end()), output);
    std::cout << "wrote " << output.string() << ": " << s.entries << " specs, " << s.bytes << " bytes\n";
    return 0;
  }
  if (p[0] == "compact" && p.size() == 2) {
    const CompactSummary c = compact_table(Table::open(p[1]).path());
    std::cout << "compacted " << p[1] << ": " << c.segments_before << " segments -> " << c.segments_after << ", "
              << c.entries << " specs, " << c.bytes << " bytes\n";
    return 0;
  }
  if (p[0] == "gc" && p.size() == 2 && args.get("--max-size")) {
    const std::uint64_t max = size_flag(args, "--max-size", 0);
    const Target target = command_target(args);
    const GcSummary g = gc_table(Table::open(p[1]).path(), max, target, CostModel::for_target(target));
    std::cout << "gc " << p[1] << ": " << g.entries_before << " -> " << g.entries_after << " specs, "
              << g.bytes_before << " -> " << g.bytes_after << " bytes\n";
    return 0;
  }
  user_error("usage: ", kTableUsage, " (got '", p[0], "')");
}

}  // namespace kriek::tools
