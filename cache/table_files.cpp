// The default table location and opening table files (see table_files.h).
#include "cache/table_files.h"

#include "cache/table_dir.h"
#include "spec/error.h"
#include "spec/stable_hash.h"

namespace kriek {

std::filesystem::path default_cache_dir(const char* xdg_cache_home, const char* home) {
  if (xdg_cache_home && *xdg_cache_home) return std::filesystem::path(xdg_cache_home) / "kriek";
  if (home && *home) return std::filesystem::path(home) / ".cache" / "kriek";
  user_error("neither XDG_CACHE_HOME nor HOME is set, so kriek has no default DP table location; pass --table FILE "
             "or --no-table");
}

std::filesystem::path default_table_path(const Target& target, const char* xdg_cache_home, const char* home) {
  return default_cache_dir(xdg_cache_home, home) / (target.name + "-" + hex16(target.fingerprint()) + ".table");
}

std::filesystem::path legacy_default_table_path(const Target& target, const std::filesystem::path& cache_dir) {
  return cache_dir / (target.name + ".table");
}

bool adopt_legacy_table(const std::filesystem::path& path, const Target& target, const CostModel& model) {
  const std::filesystem::path legacy = legacy_default_table_path(target, path.parent_path());
  if (legacy == path || path_kind(path) != PathKind::absent || path_kind(legacy) == PathKind::absent) return false;
  try {
    if (!Table::open(legacy).built_for(TableIdentity::of(target, model))) return false;
  } catch (const TableError&) {
    return false;  // not a table kriek can read: left as it is
  }
  std::error_code ec;
  std::filesystem::rename(legacy, path, ec);  // atomic; fails when another kriek renamed it first
  return !ec;
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
      name + " is stale (built by another kriek: another format, cost model or vocabulary); it will be replaced";
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
