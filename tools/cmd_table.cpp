// `kriek query SPEC` and `kriek table stats|merge|export|compact|gc`: answers from the persisted DP table without
// search, and its maintenance.
#include <cctype>
#include <iostream>

#include "cache/commands.h"
#include "cache/compaction.h"
#include "spec/error.h"
#include "spec/text.h"
#include "tools/command.h"

namespace kriek::tools {

int run_query(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"--target", "--memory", "--table"}, {"--frontier"});
  if (args.positional.size() != 1) user_error("usage: kriek query SPEC [--table FILE] [--memory ...] [--frontier]");
  const Target target = named_target(args.get("--target") ? *args.get("--target") : "host");
  const Spec spec = parse_spec(args.positional[0], target);
  const CostModel model = CostModel::for_target(target);
  MemoryUse limits = capacities(target);
  if (const auto* m = args.get("--memory")) limits = parse_memory_limits(*m, limits);
  const std::filesystem::path path = args.get("--table") ? std::filesystem::path(*args.get("--table")) : default_table_path(target);
  return query_command(path, spec, target, model, limits, args.has("--frontier") ? 0 : 1, std::cout);
}

namespace {

constexpr const char* kTableUsage =
    "kriek table stats FILE | merge IN... -o OUT | export FILE | compact FILE | gc FILE --max-size SIZE "
    "[--target T]";

/// A byte count: digits with an optional K, M or G (powers of 1024).
std::uint64_t parse_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string unit = text.substr(digits);
  const std::uint64_t scale = unit.empty() ? 1 : unit == "K" ? 1024 : unit == "M" ? 1024 * 1024
                              : unit == "G" ? std::uint64_t{1} << 30 : 0;
  if (digits == 0 || digits > 12 || scale == 0) {
    user_error("--max-size '", text, "' is not a byte count (e.g. 500M, 2G)");
  }
  return std::stoull(text.substr(0, digits)) * scale;
}

}  // namespace

int run_table(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"-o", "--max-size", "--target"}, {});
  const auto& p = args.positional;
  if (p.empty()) user_error("usage: ", kTableUsage);
  if (p[0] == "stats" && p.size() == 2) return table_stats_command(p[1], std::cout);
  if (p[0] == "export" && p.size() == 2) return table_export_command(p[1], std::cout);
  if (p[0] == "merge" && p.size() >= 2 && args.get("-o")) {
    return table_merge_command(std::vector<std::filesystem::path>(p.begin() + 1, p.end()), *args.get("-o"), std::cout);
  }
  if (p[0] == "compact" && p.size() == 2) {
    const CompactSummary c = compact_table(Table::open(p[1]).path());
    std::cout << "compacted " << p[1] << ": " << c.segments_before << " segments -> " << c.segments_after << ", "
              << c.entries << " specs, " << c.bytes << " bytes\n";
    return 0;
  }
  if (p[0] == "gc" && p.size() == 2 && args.get("--max-size")) {
    const std::uint64_t max = parse_size(*args.get("--max-size"));
    const Target target = named_target(args.get("--target") ? *args.get("--target") : "host");
    const GcSummary g = gc_table(Table::open(p[1]).path(), max, target, CostModel::for_target(target));
    std::cout << "gc " << p[1] << ": " << g.entries_before << " -> " << g.entries_after << " specs, "
              << g.bytes_before << " -> " << g.bytes_after << " bytes\n";
    return 0;
  }
  user_error("usage: ", kTableUsage, " (got '", p[0], "')");
}

}  // namespace kriek::tools
