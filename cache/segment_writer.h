// Writing one segment file: records arrive in index order and stream into zstd pages of a temporary file (closed
// pages are compressed kBatchPages at a time in parallel on the TBB pool, and written in order); the index,
// fences, page table and filter follow, the header is written last at the front, and the file is fsynced and
// renamed to its final name, so that a crash or a kill mid-write leaves no partial segment under a segment name.
// Also the k-way merge of sorted record streams that every writer and whole-table reader shares.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/segment.h"

namespace kriek {

/// zstd levels: a save compresses fast (its segment is folded later), a fold (compaction, gc, merge) harder.
/// On a real search table (matmul 16^3 and 4x8x32) level 3 gives 4% more bytes than level 6; on matmul 64^3's
/// 25,208 Specs level 1 gives 0.8% more than level 3 in 13% less time.
inline constexpr int kSaveLevel = 1;
inline constexpr int kFoldLevel = 6;

class SegmentWriter {
 public:
  /// Creates `temp`; pages are compressed at zstd level `level` (kSaveLevel or kFoldLevel). For tests,
  /// `fail_after_bytes` > 0 makes a write throw once that many bytes are written.
  SegmentWriter(std::filesystem::path temp, TableIdentity identity, int level, std::uint64_t fail_after_bytes = 0);
  ~SegmentWriter();  ///< removes the temporary file unless finish() renamed it
  SegmentWriter(const SegmentWriter&) = delete;
  SegmentWriter& operator=(const SegmentWriter&) = delete;

  /// Appends a record; records must come in strictly increasing (hash, Spec bytes) order.
  void add(std::uint64_t hash, std::string_view record);
  /// Completes, syncs and renames the file to `final_path`; returns its size. The directory is not synced: a new
  /// segment lost with its rename (a power loss before the directory reached the disk) leaves the table as it
  /// was; a writer that deletes segments after this one replaces them calls fsync_directory first.
  std::uint64_t finish(const std::filesystem::path& final_path);
  std::uint64_t entries() const { return hashes_.size(); }

 private:
  struct Out;
  struct Compressors;
  /// Closes the current page: into the batch, and the batch out when full.
  void flush_page();
  /// Compresses the batch's pages in parallel and writes them in order.
  void write_batch();

  std::filesystem::path temp_;
  TableIdentity identity_;
  std::unique_ptr<Out> out_;
  std::unique_ptr<Compressors> zstd_;
  std::string page_;
  std::vector<std::string> batch_;           ///< closed pages not yet compressed
  std::vector<std::uint64_t> batch_first_;   ///< the index of each one's first record
  std::uint64_t page_first_ = 0;
  std::uint64_t pages_offset_ = 0;
  std::vector<std::uint64_t> hashes_;
  std::vector<PageEntry> pages_;
  bool finished_ = false;
};

/// Records sorted in memory (by hash, then Spec bytes) as a RecordSource; the views must outlive it.
class SortedRecords : public RecordSource {
 public:
  struct Item {
    std::uint64_t hash;
    std::string_view record;
  };
  explicit SortedRecords(std::vector<Item> items);
  bool next() override { return ++at_ < items_.size(); }
  std::uint64_t hash() const override { return items_[at_].hash; }
  std::string_view record() const override { return items_[at_].record; }

 private:
  std::vector<Item> items_;
  std::size_t at_ = static_cast<std::size_t>(-1);
};

/// Merges sorted `sources` into one stream in index order, calling `f(hash, record)` once per distinct Spec.
/// Equal Specs must have equal frontiers: otherwise UserError naming `what` (the file being written or read)
/// and the Spec.
void merge_records(const std::vector<RecordSource*>& sources, const std::string& what,
                   const std::function<void(std::uint64_t, std::string_view)>& f);

/// The UserError for two records of the Spec with bytes `spec` whose frontiers differ, found in `what`.
[[noreturn]] void frontiers_disagree(const std::string& what, std::string_view spec);

/// fsyncs a directory after a rename into it (best effort): before deleting what the renamed file replaces.
void fsync_directory(const std::filesystem::path& dir);

}  // namespace kriek
