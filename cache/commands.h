// What the `kriek` commands that touch the DP table call: `kriek query`, `kriek table stats|merge|export`, and
// the table side of `kriek synth --table FILE / --no-table`. Each takes parsed arguments and an ostream, throws
// UserError for anything the user can fix, and returns the process exit code.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cache/table_tools.h"

namespace kriek {

/// The per-user table of a target: $XDG_CACHE_HOME/kriek/<target-name>.table, else
/// $HOME/.cache/kriek/<target-name>.table. UserError when neither variable is set (pass --table FILE then).
std::filesystem::path default_table_path(const Target& target);

/// The table at `path` checked against `target` and `model`, or nullopt when there is no file yet (the first
/// `kriek synth` of a target). UserError when the file is damaged or built for something else.
std::optional<Table> open_table_if_exists(const std::filesystem::path& path, const Target& target,
                                          const CostModel& model);

/// The per-user default table (default_table_path): like open_table_if_exists, except that it is a cache: a table
/// built by another kriek (format, cost model, vocabulary) or for other hardware is stale, not an error (nullopt
/// with `stale` set: the caller replaces it when it saves, save_table's keep_existing false), and a damaged one is
/// moved aside (table_dir.h set_aside) so that a new one is built. `note` then says what happened.
std::optional<Table> open_default_table(const std::filesystem::path& path, const Target& target,
                                        const CostModel& model, bool& stale, std::string& note);

/// `kriek query`: prints the frontier of `spec` (up to `top_k` entries, 0 = all: cost, peak per level, action),
/// marks the cheapest entry that fits `limits`, and prints its Impl rebuilt from the table. UserError when the
/// Spec is not in the table or no entry fits.
int query_command(const std::filesystem::path& table, const Spec& spec, const Target& target,
                  const CostModel& model, const MemoryUse& limits, std::size_t top_k, std::ostream& out);

/// `kriek table stats FILE`.
int table_stats_command(const std::filesystem::path& table, std::ostream& out);
/// `kriek table merge IN... -o OUT`: OUT becomes the union of the inputs.
int table_merge_command(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output,
                        std::ostream& out);
/// `kriek table export FILE`: JSON lines on `out`.
int table_export_command(const std::filesystem::path& table, std::ostream& out);

}  // namespace kriek
