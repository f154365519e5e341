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

/// The per-user table of a target: `xdg_cache_home`/kriek/<target-name>.table, else
/// `home`/.cache/kriek/<target-name>.table (either may be null or empty: unset). UserError when neither is set
/// (pass --table FILE then).
std::filesystem::path default_table_path(const Target& target, const char* xdg_cache_home, const char* home);

/// The table at `path` checked against `target` and `model`, or nullopt when there is no file yet (the first
/// `kriek synth` of a target). UserError when the file is damaged or built for something else.
std::optional<Table> open_table_if_exists(const std::filesystem::path& path, const Target& target,
                                          const CostModel& model);

/// The per-user default table (default_table_path): like open_table_if_exists, except that it is a cache: a table
/// built by another kriek (format, cost model, vocabulary) or for other hardware is stale, not an error (nullopt
/// with `stale` set: the caller replaces it when it saves, save_table's keep_existing false), and a damaged one is
/// moved aside (table_dir.h set_aside) so that a new one is built. `note` then says what happened, naming the
/// table as `what` (a benchmark's own cache tables say so).
std::optional<Table> open_default_table(const std::filesystem::path& path, const Target& target,
                                        const CostModel& model, bool& stale, std::string& note,
                                        std::string_view what = "the default DP table");

}  // namespace kriek
