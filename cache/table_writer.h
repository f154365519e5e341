// Writing to a DP table: what a writer adds becomes one new segment of the table's directory (table_dir.h),
// written to a temporary file, synced and renamed, so a crash or a kill mid-write leaves the table as it was,
// and a save costs O(Specs added), never a rewrite of the table. Writers never wait for each other: two
// processes saving at once each add a segment of their own. Past kMaxSegments segments, a commit compacts
// (compaction.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cache/packed_frontier.h"
#include "cache/table.h"

namespace kriek {

struct WriteSummary {
  std::uint64_t entries = 0;   ///< Specs in the written segment
  std::uint64_t bytes = 0;     ///< its size
  std::uint64_t segments = 0;  ///< segments of the table afterwards
};

class TableWriter {
 public:
  TableWriter(std::filesystem::path path, TableIdentity identity);
  TableWriter(std::filesystem::path path, const Target& target, const CostModel& model);
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  /// Adds one solved Spec.
  void add(const Spec& spec, const Frontier& frontier);
  /// Adds one solved Spec with a search's packed frontier (its bytes are format.h's), held until commit() rather
  /// than copied (matmul 1000^3 cold, 2 threads, its table saved: peak RSS 2277 -> 1927 MiB). `spec` must stay
  /// alive and unchanged until commit() (a search's memo key, as for_each_encoded visits them): its key is encoded
  /// then, with the others', in parallel.
  void add(const Spec& spec, std::shared_ptr<const PackedFrontier> frontier);
  /// Adds every record of `table`, which must have this writer's identity; the table must outlive commit().
  void add_table(const Table& table);
  /// Declares that every Spec added was looked up in `table` and was not there (a search that consulted it before
  /// solving each Spec: Synthesizer::set_table), so commit looks the added Specs up only in segments that writers
  /// added since `table` was opened, not again in all of them.
  void missed_in(const Table& table);

  /// Writes everything added as a new segment (none when nothing was added) and compacts past kMaxSegments.
  /// The table's segments must have this writer's identity (TableError{stale} otherwise). With `keep_existing`
  /// false, the new segment replaces every segment there was (under the compaction lock), and a one-file table
  /// of an older kriek at the path is replaced. Equal Specs must have equal frontiers (UserError otherwise).
  /// TableError{not_a_table} when something that is not a table is at the path. For tests, `fail_after_bytes`
  /// > 0 stops (throws) once that many bytes of the temporary file are written, before the rename.
  WriteSummary commit(bool keep_existing = true, std::uint64_t fail_after_bytes = 0);

  const std::filesystem::path& path() const { return path_; }

 private:
  /// Copies `bytes` into the writer's arena.
  std::string_view keep(std::string_view bytes);
  /// Encodes the records of the Specs add() left pending (in parallel on the TBB pool) into records_.
  void encode_pending();

  std::filesystem::path path_;
  TableIdentity identity_;
  /// Arena of added records' bytes (chunks never move).
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::size_t chunk_used_ = 0;
  std::size_t chunk_capacity_ = 0;
  std::vector<std::pair<std::uint64_t, std::string_view>> records_;
  struct Pending {
    const Spec* spec;
    std::shared_ptr<const PackedFrontier> frontier;
  };
  std::vector<Pending> pending_;
  std::string scratch_;  ///< the record add() encodes, before it is kept
  std::vector<const Table*> tables_;
  /// File names of the segments every added Spec is known to be missing from (missed_in).
  std::vector<std::filesystem::path> searched_;
  bool committed_ = false;
};

/// A table with more segments than this is compacted by the commit that made it so.
inline constexpr std::size_t kMaxSegments = 8;

struct WrittenSegment {
  std::filesystem::path file;  ///< empty when nothing was written
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};
/// Writes the merge of `sources` (merge_records) as a new segment of `table`, a table directory, at zstd level
/// `level` (segment_writer.h). Writes nothing when the sources are empty and `even_if_empty` is false.
WrittenSegment write_segment(const std::filesystem::path& table, const TableIdentity& identity,
                             const std::vector<RecordSource*>& sources, bool even_if_empty, int level,
                             std::uint64_t fail_after_bytes = 0);

}  // namespace kriek
