// The on-disk layout of a DP table, shared by the reader (table.h) and the writer (table_writer.h):
//   prefix   "KRIEKTBL", format version u32, header length u32        (raw little-endian, 16 bytes)
//   header   TableHeader in cereal binary, then its checksum u64
//   fences   u64 per index block: the first hash in the block; then u64 per block: the block's checksum
//   index    IndexEntry per Spec, sorted by (Spec hash, Spec bytes), blocks of kBlockEntries
//   records  one per Spec: u32 Spec length, the Spec's bytes (stable_hash.h), its frontier (cereal binary: u32
//            entry count; per entry the action (action_codec.h), the cost u64, the peak as a byte with one bit per
//            level in use and those levels' byte counts as i64, and a u8 count of child entry indices, each u32)
// A query reads the prefix, header and fences, one index block and one record: never the whole file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cache/frontier.h"
#include "impl/cost.h"
#include "spec/target.h"

namespace kriek {

inline constexpr char kTableMagic[8] = {'K', 'R', 'I', 'E', 'K', 'T', 'B', 'L'};
/// Bumped whenever the layout above, the Spec encoding or the frontier encoding changes, or what a search finds
/// for a Spec (the tile grid, which Specs are canonical): a table must hold what a fresh search would.
/// 2: the grid keeps 3*2^i sizes above 6 only where they divide the extent; serial_only and alignment are
/// canonical where they cannot matter (sched/canonical.h).
/// 3: rows along the innermost dimension and rows inside an aligned panel are contiguous (impl/tiling.h), so
/// more Specs move to VRF; blocked L1 operands keep their alignment in canonical Specs.
/// 4: Conv has strides and padding (the Spec encoding), split has an axis, to_matmul and pad_image exist.
inline constexpr std::uint32_t kTableFormatVersion = 4;
inline constexpr std::size_t kPrefixBytes = 16;
/// Index entries per checksummed block: a query verifies one block (6 KiB), not the whole index.
inline constexpr std::uint32_t kBlockEntries = 256;

/// What a table's frontiers depend on besides the Specs: two tables may be merged, and a table may serve a
/// search, only when these agree.
struct TableIdentity {
  std::string target_name;
  std::uint64_t target_fingerprint = 0;
  std::uint32_t model_version = 0;
  std::uint64_t model_fingerprint = 0;
  /// vocabulary_fingerprint() of the kriek that wrote it (op kinds, levels, kernels, action tags).
  std::uint64_t vocabulary = 0;

  static TableIdentity of(const Target& target, const CostModel& model);
  friend bool operator==(const TableIdentity&, const TableIdentity&) = default;
  template <class Archive> void serialize(Archive& ar) {
    ar(target_name, target_fingerprint, model_version, model_fingerprint, vocabulary);
  }
};

struct TableHeader {
  TableIdentity identity;
  std::uint64_t entry_count = 0;
  std::uint32_t block_entries = kBlockEntries;
  std::uint64_t fences_offset = 0;
  std::uint64_t index_offset = 0;
  std::uint64_t records_offset = 0;
  std::uint64_t file_size = 0;
  /// stable_hash of the fences and block checksums together.
  std::uint64_t fences_checksum = 0;

  std::uint64_t block_count() const { return (entry_count + block_entries - 1) / block_entries; }
  template <class Archive> void serialize(Archive& ar) {
    ar(identity, entry_count, block_entries, fences_offset, index_offset, records_offset, file_size,
       fences_checksum);
  }
};

/// One index entry, stored as 24 little-endian bytes.
struct IndexEntry {
  std::uint64_t hash = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  /// Low 32 bits of stable_hash of the record.
  std::uint32_t checksum = 0;
};
inline constexpr std::size_t kIndexEntryBytes = 24;

/// A record: the Spec's bytes and the frontier's encoding.
std::string encode_record(std::string_view spec_bytes, const Frontier& frontier);
/// The Spec bytes of a record; throws UserError when the record is too short for its own length field.
std::string_view record_spec(std::string_view record);
/// The frontier of a record; throws UserError when it does not decode.
Frontier decode_frontier(std::string_view record);
/// The frontier part of a record, as bytes (equal frontiers have equal bytes).
std::string_view record_frontier_bytes(std::string_view record);

}  // namespace kriek
