// Where the per-user DP table lives and how the commands open a table file: the default path from the cache
// directories (given by the caller, which reads the environment), and opening a table that may not exist yet or
// may be a stale cache. No printing: the `kriek` commands in tools/ decide what to say.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cache/table.h"

namespace kriek {

/// kriek's per-user cache directory: `xdg_cache_home`/kriek, else `home`/.cache/kriek (either may be null or
/// empty: unset). UserError when neither is set (pass --table FILE then).
std::filesystem::path default_cache_dir(const char* xdg_cache_home, const char* home);

/// The per-user table of a target: <cache dir>/<target-name>-<fingerprint, 16 hex digits>.table. One file per
/// target as detected (its caches, its cores, the CPUs the process may use, its calibration), so that machines
/// sharing a home directory, a run pinned to one CPU (`taskset -c 0`: one core) and a run with `--no-profile`
/// each keep their own table instead of replacing each other's; a table of the same target is stale only when
/// another kriek built it (format, cost model, vocabulary).
std::filesystem::path default_table_path(const Target& target, const char* xdg_cache_home, const char* home);

/// The name kriek gave the per-user table until 2026-11-27 (<cache dir>/<target-name>.table, one for every target
/// of that name): adopt_legacy_table moves it to default_table_path when it was built for this target and model.
std::filesystem::path legacy_default_table_path(const Target& target, const std::filesystem::path& cache_dir);

/// Renames the legacy default table to `path` when `path` does not exist yet and the legacy one was built for
/// `target` and `model` (a table of other hardware or another kriek stays where it is); true when it did. A
/// concurrent kriek may adopt it first: then false, and `path` exists.
bool adopt_legacy_table(const std::filesystem::path& path, const Target& target, const CostModel& model);

/// The table at `path` checked against `target` and `model`, or nullopt when there is no file yet (the first
/// `kriek synth` of a target). UserError when the file is damaged or built for something else.
std::optional<Table> open_table_if_exists(const std::filesystem::path& path, const Target& target,
                                          const CostModel& model);

/// The per-user default table (default_table_path): like open_table_if_exists, except that it is a cache: a table
/// built by another kriek (format, cost model, vocabulary) or for another target is stale, not an error (nullopt
/// with `stale` set: the caller replaces it when it saves, save_table's keep_existing false), and a damaged one is
/// moved aside (table_dir.h set_aside) so that a new one is built. `note` then says what happened, naming the
/// table as `what` (a benchmark's own cache tables say so).
std::optional<Table> open_default_table(const std::filesystem::path& path, const Target& target,
                                        const CostModel& model, bool& stale, std::string& note,
                                        std::string_view what = "the default DP table");

}  // namespace kriek
