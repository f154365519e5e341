// The search that `kriek synth`, `kriek emit` and `kriek run` share: the Spec and target from the command line,
// memory limits, threads, the DP table (read first, extended after), a progress line on a terminal, and the
// cheapest Impl that fits.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cache/tuned.h"
#include "synth/synthesizer.h"
#include "tools/command.h"

namespace kriek::tools {

/// Flags every synthesizing command takes (valued, then switches).
inline const std::vector<std::string_view> kSynthValued = {"--target", "--profile", "--memory", "--threads", "--table",
                                                          "--max-memory"};
inline const std::vector<std::string_view> kSynthSwitches = {"--no-table", "--no-profile", "--sparse"};

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
  /// The cheapest frontier entry within `limits`, or the fastest measured when `kriek tune` recorded one.
  ImplPtr impl;
  std::optional<TunedRecord> tuned;
  double seconds = 0;

  const Target& target() const { return synth->target(); }
  /// Writes what was solved back to the table (when one is in use) and returns a one-line report.
  std::string save_table();
  /// The search statistics line.
  std::string stats_line() const;
  /// When `impl` is tuned: a line saying so, with the times measured; else empty.
  std::string tuned_line() const;
};

/// The Impl of a tuned choice recorded beside `table`, or null with a note on stderr when it no longer rebuilds
/// (a gc may drop subproblems only the tuned choice used) or when this kriek emits other code for it or for
/// `pick`, the DP's pick, than the code timed (codegen::code_hash of both; a newer code generator): the caller then
/// takes the cheapest predicted.
ImplPtr rebuild_tuned(const Spec& spec, const TunedRecord& tuned, const ImplPtr& pick, const Target& target,
                      const FrontierLookup& lookup, const Table& table);

/// True when `limits` are below `target`'s capacity in a register level: such a search tells every register
/// class apart (SynthOptions::every_class) and keeps its own table (search_table_path).
bool cuts_registers(const MemoryUse& limits, const Target& target);

/// Where a search with `options` keeps its frontiers, given the table asked for: `table` itself, or beside it for
/// a sparse search (t.table: t.sparse2.table, 2 the sparse rules' version; its frontiers are estimates,
/// synth/sparse.h, so they never mix with an exhaustive search's, nor with other rules') and for one that tells
/// every register class apart (t.registers.table; its frontiers hold plans a default search's do not). `kriek
/// synth` and `kriek query` both ask it.
std::filesystem::path search_table_path(const std::filesystem::path& table, const SynthOptions& options);

/// UserError, before any search, when the operands of `spec` alone need more bytes than this machine's physical
/// memory (naming both): such a kernel could never run.
void refuse_beyond_memory(const Spec& spec);

/// Parses the Spec (`text`) and the flags in `args`, refuses a Spec beyond the machine's memory, runs the search
/// and picks the Impl. UserError for bad flags and when no Impl fits the limits.
Synthesis synthesize(const std::string& text, const Args& args);

}  // namespace kriek::tools
