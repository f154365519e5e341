// The search that `kriek synth`, `kriek emit` and `kriek run` share: the Spec and target from the command line,
// memory limits, threads, the DP table (read first, extended after), a progress line on a terminal, and the
// cheapest Impl that fits.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "synth/synthesizer.h"
#include "tools/command.h"

namespace kriek::tools {

/// Flags every synthesizing command takes (valued, then switches).
inline const std::vector<std::string_view> kSynthValued = {"--target", "--memory", "--threads", "--table",
                                                          "--max-memory"};
inline const std::vector<std::string_view> kSynthSwitches = {"--no-table"};

struct Synthesis {
  Spec spec;
  MemoryUse limits;
  std::unique_ptr<Synthesizer> synth;
  std::optional<std::filesystem::path> table_path;
  std::optional<Table> table;
  /// The table is the per-user default one (a cache: set aside when damaged, kept within a size by gc).
  bool default_table = false;
  /// The default table on disk was stale (another kriek or other hardware): saving replaces it.
  bool replace_table = false;
  Frontier frontier;
  ImplPtr impl;  ///< the cheapest frontier entry within `limits`
  double seconds = 0;

  const Target& target() const { return synth->target(); }
  /// Writes what was solved back to the table (when one is in use) and returns a one-line report.
  std::string save_table();
  /// The search statistics line.
  std::string stats_line() const;
};

/// UserError, before any search, when the operands of `spec` alone need more bytes than this machine's physical
/// memory (naming both): such a kernel could never run.
void refuse_beyond_memory(const Spec& spec);

/// Parses the Spec (`text`) and the flags in `args`, refuses a Spec beyond the machine's memory, runs the search
/// and picks the Impl. UserError for bad flags and when no Impl fits the limits.
Synthesis synthesize(const std::string& text, const Args& args);

}  // namespace kriek::tools
