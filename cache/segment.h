// One segment file of a DP table, opened read-only with mmap: a sorted, immutable set of records (format.h).
// A lookup asks the Bloom filter (segment_filter.h), and only when it passes binary-searches the fences and one
// index block and decompresses one page; a Cursor walks every record in index order, a page at a time. Every
// filter chunk, block and page is checksummed before it is trusted, and every read is bounds-checked, so a
// damaged file gives a TableError, not a crash.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cache/format.h"

namespace kriek {

/// A stream of records in (Spec hash, Spec bytes) order: a segment's Cursor, or records sorted in memory.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  /// Moves to the next record; false at the end.
  virtual bool next() = 0;
  virtual std::uint64_t hash() const = 0;
  /// The record (format.h); valid until the second call to next() after it (merge_records compares a record
  /// with the one before it without copying it).
  virtual std::string_view record() const = 0;
};

class Segment {
 public:
  /// Opens and maps `file` of the table `table` (named in errors), checking the magic, the format version, the
  /// header's, fences' and page table's checksums and the file's length. Throws TableError.
  static std::unique_ptr<Segment> open(const std::filesystem::path& file, const std::filesystem::path& table);
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  /// The record whose Spec bytes are `key` (stable_hash `hash`), or nullopt. Thread-safe.
  std::optional<std::string> find(std::string_view key, std::uint64_t hash) const;

  /// Walks the records in index order. Views stay valid until the second call to next() after them (the page
  /// before the current one is kept).
  class Cursor : public RecordSource {
   public:
    explicit Cursor(const Segment& segment) : segment_(&segment) {}
    bool next() override;
    std::uint64_t hash() const override { return hash_; }
    std::string_view record() const override { return record_; }

   private:
    const Segment* segment_;
    std::uint64_t entry_ = 0;  ///< index of the next record
    std::uint64_t page_ = 0;   ///< index of the next page to decompress
    std::string bytes_[2];     ///< the current page, decompressed, and the one before it (never moved)
    int current_ = 0;          ///< which of bytes_ is the current page
    std::size_t at_ = 0;       ///< read position in bytes_
    std::uint64_t hash_ = 0;
    std::string_view record_;
  };

  std::size_t size() const { return static_cast<std::size_t>(header_.entry_count); }
  const SegmentHeader& header() const { return header_; }
  const TableIdentity& identity() const { return header_.identity; }
  std::uint64_t file_bytes() const { return size_; }
  const std::filesystem::path& file() const { return file_; }

  /// False when no record has Spec hash `hash` (the Bloom filter; true for about 1% of absent hashes). Verifies
  /// the filter chunk it reads (once per open segment, like index blocks). Thread-safe.
  bool may_contain(std::uint64_t hash) const;
  /// The hash of record `i` (its index block must have been verified).
  std::uint64_t hash_at(std::uint64_t i) const;
  /// Verifies index block `block`'s checksum (once per open segment: the block cannot change under a mapping
  /// of an immutable file).
  void verify_block(std::uint64_t block) const;
  /// Page `p`, checked and decompressed.
  std::string page(std::uint64_t p) const;
  PageEntry page_entry(std::uint64_t p) const;
  /// TableError{corrupted} naming the table, this segment and `what`.
  [[noreturn]] void corrupted(const std::string& what) const;

 private:
  Segment() = default;

  std::filesystem::path file_;
  std::filesystem::path table_;
  const char* data_ = nullptr;
  std::uint64_t size_ = 0;
  SegmentHeader header_;
  /// One flag per index block, and per filter chunk: verified already.
  std::unique_ptr<std::atomic<bool>[]> verified_;
  std::unique_ptr<std::atomic<bool>[]> filter_verified_;
};

/// "delete TABLE and run kriek synth --table TABLE again": the fix for a damaged or stale table.
std::string rebuild_hint(const std::filesystem::path& table);

}  // namespace kriek
