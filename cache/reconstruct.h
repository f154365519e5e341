// Rebuilding an Impl from stored decisions alone, with no search: the one place that turns a frontier entry (an
// action and the chosen entry of each child's frontier) back into an Impl tree. The search's memo and the DP
// table both feed it through a lookup, so a query from the table and a synthesis rebuild the same way.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "cache/frontier.h"
#include "cache/table.h"
#include "impl/node.h"

namespace kriek {

/// The decisions of one Spec: its frontier, and the table it was read from. A decision read from a table that
/// does not rebuild means a damaged or stale table (a UserError naming the file); one computed in this process
/// (`table` nullptr) means a kriek bug (an assert).
struct StoredFrontier {
  /// Where the frontier lives: a memo entry that outlives the rebuild, or `read`.
  const Frontier* frontier = nullptr;
  /// A frontier read from a table just for this lookup.
  std::optional<Frontier> read;
  const Table* table = nullptr;

  const Frontier* get() const { return read ? &*read : frontier; }
};

/// The decisions of a Spec, or a StoredFrontier with no frontier when the Spec is unknown.
using FrontierLookup = std::function<StoredFrontier(const Spec&)>;

/// Rebuilds the Impl of frontier entry `entry` of `spec`: applies the stored action to `spec` and rebuilds each
/// child from the entry it chose, looking every child up with `lookup`. The root must be known (KRIEK_ASSERT);
/// a child that is missing, an entry out of range, or an action that no longer applies or makes another number
/// of children is a UserError naming the table when the parent's decisions came from one, an assert otherwise.
ImplPtr reconstruct(const Spec& spec, std::size_t entry, const Target& target, const FrontierLookup& lookup);

/// A lookup that reads `table` only (the table must outlive it).
FrontierLookup table_lookup(const Table& table);

}  // namespace kriek
