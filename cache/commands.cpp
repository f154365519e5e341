// The table commands: argument handling is the CLI's; these open the table, do the work and print.
#include "cache/commands.h"

#include <cstdlib>
#include <ostream>

#include "cache/table_dir.h"
#include "impl/printer.h"
#include "spec/error.h"

namespace kriek {

std::filesystem::path default_table_path(const Target& target) {
  const std::string file = target.name + ".table";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::filesystem::path(xdg) / "kriek" / file;
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "kriek" / file;
  }
  user_error("neither XDG_CACHE_HOME nor HOME is set, so kriek has no default DP table location; pass --table FILE "
             "or --no-table");
}

std::optional<Table> open_table_if_exists(const std::filesystem::path& path, const Target& target,
                                          const CostModel& model) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return Table::open(path, target, model);
}

std::optional<Table> open_default_table(const std::filesystem::path& path, const Target& target,
                                        const CostModel& model, bool& stale, std::string& note) {
  stale = false;
  const std::string stale_note = "the default DP table " + path.string() +
                                 " is stale (built by another kriek or for other hardware); it will be replaced";
  try {
    if (path_kind(path) == PathKind::absent) return std::nullopt;
    Table table = Table::open(path);
    stale = !table.built_for(TableIdentity::of(target, model));
    if (!stale) return table;
    note = stale_note;
  } catch (const TableError& e) {
    switch (e.kind) {
      case TableError::Kind::missing: break;
      case TableError::Kind::stale:
        stale = true;
        note = stale_note;
        break;
      case TableError::Kind::not_a_table:
      case TableError::Kind::corrupted:
        note = "the default DP table was unusable (" + std::string(e.what()) + "); it was moved to " +
               set_aside(path).string() + " and a new one is built";
        break;
    }
  }
  return std::nullopt;
}

int query_command(const std::filesystem::path& path, const Spec& spec, const Target& target,
                  const CostModel& model, const MemoryUse& limits, std::size_t top_k, std::ostream& out) {
  const Table table = Table::open(path, target, model);
  const std::optional<Frontier> f = table.lookup(spec);
  if (!f) {
    user_error(spec, " is not in the DP table ", path.string(), "; kriek synth --table ", path.string(),
               " adds it");
  }
  const std::ptrdiff_t best = f->best_within(limits);
  out << "# " << spec << "\n# frontier of " << f->entries.size() << " entries (cost in 1/16 cycles)\n";
  const std::size_t shown = top_k == 0 ? f->entries.size() : std::min(top_k, f->entries.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const FrontierEntry& e = f->entries[i];
    out << (static_cast<std::ptrdiff_t>(i) == best ? "* " : "  ") << i << "  cost " << e.cost << "  peak " << e.peak
        << "  " << action_text(e.action, spec) << "\n";
  }
  if (best < 0) user_error("no Impl of ", spec, " in ", path.string(), " fits the memory limits ", limits);
  out << "# best within limits: entry " << best << "\n"
      << print_impl(reconstruct_from_table(table, spec, static_cast<std::size_t>(best), target));
  return 0;
}

int table_stats_command(const std::filesystem::path& path, std::ostream& out) {
  const Table table = Table::open(path);
  print_stats(out, table, table_stats(table));
  return 0;
}

int table_merge_command(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output,
                        std::ostream& out) {
  const WriteSummary s = merge_tables(inputs, output);
  out << "wrote " << output.string() << ": " << s.entries << " specs, " << s.bytes << " bytes\n";
  return 0;
}

int table_export_command(const std::filesystem::path& path, std::ostream& out) {
  export_json_lines(Table::open(path), out);
  return 0;
}

}  // namespace kriek
