// The directory a DP table lives in: a marker file that says it is a kriek table, immutable segment files named
// so that they sort by age (format.h), temporary files of writers at work, the compaction lock, and the log of
// root uses that gc orders Specs by. Readers only list and open segments; writers create a segment of their own
// by rename, so no writer ever waits for another; only compaction and gc, which delete segments, lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

namespace kriek {

/// What is at a table path.
enum class PathKind : std::uint8_t {
  absent,        ///< nothing: a writer creates the table there
  table,         ///< a directory with the marker (or an empty directory)
  legacy_table,  ///< a one-file table of format version 3 or older (magic KRIEKTBL)
  other,         ///< anything else, which kriek never writes into or deletes
};
PathKind path_kind(const std::filesystem::path& path);

/// Makes `path` a table directory (creating parents and the marker). TableError{not_a_table} when something
/// else is there.
void create_table_dir(const std::filesystem::path& path);

/// The segment files of the table, oldest first.
std::vector<std::filesystem::path> list_segments(const std::filesystem::path& table);
/// A fresh segment name (sorts after every existing one) and a fresh temporary file name, unique across
/// processes and threads.
std::filesystem::path new_segment_path(const std::filesystem::path& table);
std::filesystem::path new_temp_path(const std::filesystem::path& table);
/// True for the name of a writer's temporary file.
bool is_temp_file(const std::filesystem::path& file);
/// Removes the temporary files of writers that are no longer running (killed mid-write).
void remove_dead_temps(const std::filesystem::path& table);

/// The compaction lock (flock on TABLE/compact.lock): one compaction or gc at a time per table. With `wait`
/// false, held() tells whether it was free.
class CompactionLock {
 public:
  CompactionLock(const std::filesystem::path& table, bool wait);
  ~CompactionLock();
  CompactionLock(const CompactionLock&) = delete;
  CompactionLock& operator=(const CompactionLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// Moves a damaged table (a cache) aside to PATH.corrupted, replacing an earlier one; returns the new path.
std::filesystem::path set_aside(const std::filesystem::path& path);
/// Removes a table directory or a legacy one-file table (never anything of PathKind::other).
void remove_table(const std::filesystem::path& path);

/// Appends a use of the Spec with stable hash `root` as a search root, now, to TABLE/roots (16 bytes, O_APPEND).
void note_root_use(const std::filesystem::path& table, std::uint64_t root);
/// The latest use time (nanoseconds since the epoch) of every root in TABLE/roots.
std::map<std::uint64_t, std::uint64_t> read_root_uses(const std::filesystem::path& table);
/// Replaces TABLE/roots atomically with `uses`.
void write_root_uses(const std::filesystem::path& table, const std::map<std::uint64_t, std::uint64_t>& uses);

}  // namespace kriek
