// `kriek query SPEC` and `kriek table stats|merge|export`: answers from the persisted DP table, without search.
#include <iostream>

#include "cache/commands.h"
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

int run_table(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"-o"}, {});
  const auto& p = args.positional;
  if (p.empty()) user_error("usage: kriek table stats FILE | merge IN... -o OUT | export FILE");
  if (p[0] == "stats" && p.size() == 2) return table_stats_command(p[1], std::cout);
  if (p[0] == "export" && p.size() == 2) return table_export_command(p[1], std::cout);
  if (p[0] == "merge" && p.size() >= 2 && args.get("-o")) {
    return table_merge_command(std::vector<std::filesystem::path>(p.begin() + 1, p.end()), *args.get("-o"), std::cout);
  }
  user_error("usage: kriek table stats FILE | merge IN... -o OUT | export FILE (got '", p[0], "')");
}

}  // namespace kriek::tools
