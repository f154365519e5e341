// A persisted DP table, opened read-only with mmap: the Pareto frontier of every Spec a search solved, found by a
// binary search of an index sorted by a stable hash of the Spec, decoding only the one record asked for. Any
// number of readers (threads or processes) may share a table; a table is replaced only by an atomic rename.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "cache/format.h"

namespace kriek {

/// One record as stored: its index entry and bytes (valid while the Table lives).
struct RawRecord {
  std::uint64_t hash = 0;
  std::string_view spec;   ///< spec_bytes of the Spec
  std::string_view bytes;  ///< the whole record
};

class Table {
 public:
  /// Opens and maps `path`, checking the magic, the format version, the header's and the fences' checksums and
  /// the file's length. Throws UserError naming the file and what is wrong (missing, truncated, corrupted, other
  /// format version) and how to fix it.
  static Table open(const std::filesystem::path& path);
  /// Opens `path` and checks that it was built for `target` and `model` (check_compatible).
  static Table open(const std::filesystem::path& path, const Target& target, const CostModel& model);

  Table(Table&& other) noexcept;
  Table& operator=(Table&& other) noexcept;
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;
  ~Table();

  /// Throws UserError when the table was built for another target (both names and fingerprints), another cost
  /// model version or constants, or another kriek vocabulary.
  void check_compatible(const TableIdentity& expected) const;
  void check_compatible(const Target& target, const CostModel& model) const;

  /// The frontier stored for `spec` (keyed by canonical_spec, sched/canonical.h), or nullopt. Reads one index
  /// block and one record, verifying both checksums (UserError when corrupted). Thread-safe.
  std::optional<Frontier> lookup(const Spec& spec) const;
  bool contains(const Spec& spec) const { return find_record(spec).has_value(); }

  /// Calls `f` on every record in index order, verifying every checksum (for copying and merging).
  void for_each_raw(const std::function<void(const RawRecord&)>& f) const;
  /// Calls `f` on every Spec and frontier in index order, verifying every checksum.
  void for_each(const std::function<void(const Spec&, const Frontier&)>& f) const;

  std::size_t size() const { return static_cast<std::size_t>(header_.entry_count); }
  const TableIdentity& identity() const { return header_.identity; }
  const TableHeader& header() const { return header_; }
  std::uint64_t file_bytes() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  Table() = default;
  std::optional<RawRecord> find_record(const Spec& spec) const;
  IndexEntry entry(std::size_t i) const;
  void verify_block(std::size_t block) const;
  RawRecord checked_record(std::size_t i, const IndexEntry& e) const;
  [[noreturn]] void corrupted(const std::string& what) const;

  std::filesystem::path path_;
  const char* data_ = nullptr;
  std::uint64_t size_ = 0;
  TableHeader header_;
};

}  // namespace kriek
