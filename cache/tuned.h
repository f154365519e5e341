// Measured choices beside a DP table: `kriek tune` times the best Impls of a Spec and records the fastest in the
// table's directory (the file `tuned`), keyed by the table's identity (target, profile and cost model), the Spec's
// table key and the memory limits; query, run and library then use it instead of the cheapest predicted entry.
// The file is append-only text, one record per line written by one O_APPEND write, so concurrent krieks never
// interleave within a record; a reader skips lines it cannot read, and the last record of a key wins.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "cache/frontier.h"
#include "cache/reconstruct.h"
#include "impl/cost.h"

namespace kriek {

/// One measured choice: the decision (an action of the Spec and an entry of each child's frontier; not
/// necessarily an entry of the Spec's own frontier), its predicted cost and the time it measured.
struct TunedRecord {
  FrontierEntry decision;
  /// Median seconds per call, and of the DP's own pick (the cheapest predicted) in the same run.
  double seconds = 0;
  double pick_seconds = 0;
  /// A hash of the code both kernels were timed as (codegen::code_hash of the two): a kriek whose code
  /// generator emits other code for them measured nothing of its own, so its record is not used.
  std::uint64_t code = 0;
};

/// Appends `record` for `spec` within `limits` to `table`/tuned (the table's directory must exist). UserError
/// naming the file when it cannot be written.
void record_tuned(const std::filesystem::path& table, const Target& target, const CostModel& model, const Spec& spec,
                  const MemoryUse& limits, const TunedRecord& record);

/// The last record for `spec` within exactly `limits` made with this target and model, or nullopt.
std::optional<TunedRecord> find_tuned(const std::filesystem::path& table, const Target& target, const CostModel& model,
                                      const Spec& spec, const MemoryUse& limits);

/// Rebuilds the Impl of `decision`, a decision of `spec` that need not be on its frontier: its action applied to
/// `spec`, each child rebuilt from the entry it names (reconstruct, with `lookup` for the children). `table`: the
/// table the decision was recorded beside, so that one that no longer rebuilds (a gc dropped a child) is a
/// UserError naming it; nullptr for a decision of this process (then it is a bug).
ImplPtr reconstruct_decision(const Spec& spec, const FrontierEntry& decision, const Target& target,
                             const FrontierLookup& lookup, const Table* table = nullptr);

}  // namespace kriek
