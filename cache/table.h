// A persisted DP table, opened read-only: the directory's segments (table_dir.h), each mapped, together the
// Pareto frontier of every Spec searches solved. A lookup asks each segment's index (newest first) and decodes
// one page of one, so a process touches only the Specs it asks for. Any number of readers (threads or processes)
// may share a table while writers add segments and compaction replaces them: an open Table keeps the segments
// it mapped, and a segment is never changed in place.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/segment.h"

namespace kriek {

/// The bytes a table keys `spec` by: spec_bytes of its canonical form (the search's memo keys,
/// sched/canonical.h); the index holds their stable_hash.
std::string table_key(const Spec& spec);

class Table {
 public:
  /// Opens every segment of the table at `path`, checking each (segment.h). Throws TableError naming the table
  /// and what is wrong (missing, not a table, corrupted, another format version) and how to fix it.
  static Table open(const std::filesystem::path& path);
  /// Opens `path` and checks that it was built for `target` and `model` (check_compatible).
  static Table open(const std::filesystem::path& path, const Target& target, const CostModel& model);

  Table(Table&&) noexcept = default;
  Table& operator=(Table&&) noexcept = default;
  ~Table();

  /// Throws TableError{stale} when a segment was built for another target (both names and fingerprints),
  /// another cost model version or constants, or another kriek vocabulary.
  void check_compatible(const TableIdentity& expected) const;
  void check_compatible(const Target& target, const CostModel& model) const;
  /// True when every segment has identity `expected`.
  bool built_for(const TableIdentity& expected) const;

  /// The frontier stored for `spec` (keyed by canonical_spec, sched/canonical.h), or nullopt. Verifies the index
  /// block's and the page's checksums (TableError when corrupted). Thread-safe.
  std::optional<Frontier> lookup(const Spec& spec) const;
  bool contains(const Spec& spec) const { return find_record(spec).has_value(); }
  /// The record of `spec` (format.h), or nullopt.
  std::optional<std::string> find_record(const Spec& spec) const;
  /// The record whose Spec bytes are `key` (a table_key, stable_hash `hash`), or nullopt.
  std::optional<std::string> find_key(std::string_view key, std::uint64_t hash) const;

  /// Calls `f` on every distinct Spec's record in index order, verifying every checksum and that Specs in
  /// several segments have equal frontiers.
  void for_each_raw(const std::function<void(std::uint64_t hash, std::string_view record)>& f) const;
  /// Calls `f` on every Spec and frontier in index order.
  void for_each(const std::function<void(const Spec&, const Frontier&)>& f) const;

  /// Distinct Specs (a full pass over the segments' indexes, no pages).
  std::size_t size() const;
  /// The identity of the newest segment (every segment's, when built_for it).
  const TableIdentity& identity() const;
  std::uint64_t file_bytes() const;
  const std::filesystem::path& path() const { return path_; }
  /// Oldest first.
  const std::vector<std::unique_ptr<Segment>>& segments() const { return segments_; }

 private:
  Table() = default;

  std::filesystem::path path_;
  std::vector<std::unique_ptr<Segment>> segments_;
};

}  // namespace kriek
