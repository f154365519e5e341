// Folding a table's segments into fewer, and bounding its size. Both write a new segment (atomically, like any
// writer) and only then delete the segments it replaces, under the table's compaction lock: readers keep the
// segments they mapped, a reader that lists the directory meanwhile sees either the old segments or the new one
// (or both: their records agree), and a kill at any point leaves every Spec readable.
#pragma once

#include <cstdint>
#include <filesystem>

#include "cache/table.h"

namespace kriek {

struct CompactSummary {
  std::uint64_t segments_before = 0;
  std::uint64_t segments_after = 0;
  std::uint64_t entries = 0;  ///< Specs in the segment written
  std::uint64_t bytes = 0;    ///< its size
};

/// With `all`, folds every segment into one, waiting for a running compaction first (`kriek table compact`).
/// Otherwise (a writer's automatic compaction) folds the smallest segments, as many as keep the work
/// proportional to what was added since (each segment in the fold is at most 4x the ones smaller than it, and
/// enough are folded to get under kMaxSegments), and does nothing when another compaction is running. Also
/// removes temporary files of writers that died.
CompactSummary compact_table(const std::filesystem::path& table, bool all = true);

struct GcSummary {
  std::uint64_t entries_before = 0;
  std::uint64_t entries_after = 0;
  std::uint64_t bytes_before = 0;
  std::uint64_t bytes_after = 0;
};

/// Shrinks the table to at most `max_bytes` (when it is larger): keeps the Specs of the most recently used roots
/// first (the log of note_root_use), each with the closure its frontier needs (every child of every entry, so
/// every kept frontier still rebuilds), then the Specs of the newest segments with their closures, until the
/// estimate of the kept size reaches `max_bytes`; the rest is dropped. `target` must be the table's (children are
/// derived by applying the stored actions). Writes one segment replacing all (under the compaction lock).
GcSummary gc_table(const std::filesystem::path& table, std::uint64_t max_bytes, const Target& target,
                   const CostModel& model);

/// The size limit of the per-user default table, which kriek keeps by gc after a save: 1 GiB, or the bytes in
/// $KRIEK_TABLE_MAX_SIZE.
std::uint64_t default_table_max_bytes();

}  // namespace kriek
