// The default table location and opening table files (see table_files.h).
#include "cache/table_files.h"

#include "cache/table_dir.h"
#include "spec/error.h"

namespace kriek {

std::filesystem::path default_table_path(const Target& target, const char* xdg_cache_home, const char* home) {
  const std::string file = target.name + ".table";
  if (xdg_cache_home && *xdg_cache_home) return std::filesystem::path(xdg_cache_home) / "kriek" / file;
  if (home && *home) return std::filesystem::path(home) / ".cache" / "kriek" / file;
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
                                        const CostModel& model, bool& stale, std::string& note,
                                        std::string_view what) {
  stale = false;
  const std::string name = std::string(what) + " " + path.string();
  const std::string stale_note =
      name + " is stale (built by another kriek or for other hardware); it will be replaced";
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
        note = std::string(what) + " was unusable (" + std::string(e.what()) + "); it was moved to " +
               set_aside(path).string() + " and a new one is built";
        break;
    }
  }
  return std::nullopt;
}

}  // namespace kriek
