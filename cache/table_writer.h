// Writing a DP table: the union of the table already at the path and every frontier added, written to a
// temporary file in the same directory, fsynced and renamed over the old one, so that a crash or a kill mid-write
// leaves the previous table intact. One writer at a time per table (flock on FILE.lock); readers never lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cache/table.h"

namespace kriek {

struct WriteSummary {
  std::uint64_t entries = 0;  ///< Specs in the written table
  std::uint64_t added = 0;    ///< of which new (not in the previous table)
  std::uint64_t bytes = 0;    ///< file size
};

class TableWriter {
 public:
  /// Takes the writer lock of `path` (creating its directory if needed). Throws UserError naming the file and
  /// the holder's pid when another writer has it.
  TableWriter(std::filesystem::path path, TableIdentity identity);
  TableWriter(std::filesystem::path path, const Target& target, const CostModel& model);
  ~TableWriter();
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  /// Adds one solved Spec.
  void add(const Spec& spec, const Frontier& frontier);
  /// Adds every record of `table`, which must have this writer's identity; the table must outlive commit().
  void add_table(const Table& table);

  /// Writes the union of the existing table at the path (when `keep_existing` and the file exists; it must
  /// have this writer's identity) and everything added, atomically. Equal Specs must have equal frontiers
  /// (UserError otherwise). Releases the lock. For tests, `fail_after_bytes` > 0 stops (throws) once that many
  /// bytes of the temporary file are written, before the rename.
  WriteSummary commit(bool keep_existing = true, std::uint64_t fail_after_bytes = 0);

  const std::filesystem::path& path() const { return path_; }

 private:
  struct Item {
    std::uint64_t hash;
    std::string_view spec;
    std::string_view record;
    bool is_new;
  };
  void add_raw(const RawRecord& r, bool is_new);
  /// Copies `bytes` into the writer's arena.
  std::string_view keep(std::string_view bytes);
  void release();

  std::filesystem::path path_;
  TableIdentity identity_;
  int lock_fd_ = -1;
  /// Arena of added records' bytes (chunks never move); Items point into it or into mapped tables.
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::size_t chunk_used_ = 0;
  std::size_t chunk_capacity_ = 0;
  std::vector<Item> items_;
  std::vector<std::unique_ptr<Table>> existing_;
};

/// The path of FILE's writer lock: FILE.lock.
std::filesystem::path lock_path(const std::filesystem::path& table);
/// The temporary file a writer fills before renaming it to FILE: FILE.tmp (only the lock holder writes it).
std::filesystem::path temp_path(const std::filesystem::path& table);

}  // namespace kriek
