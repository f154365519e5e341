// The on-disk layout of a DP table. A table is a directory (table_dir.h) of immutable segment files; each
// segment is sorted and self-contained, and this is its layout, shared by the reader (segment.h) and the writer
// (segment_writer.h):
//   prefix   "KRIEKTBL", format version u32, header length u32        (raw little-endian, 16 bytes)
//   header   SegmentHeader in cereal binary, then the checksum u64 of prefix and header
//   pages    zstd frames, one per page of records in index order; a page holds whole records of about
//            kPageBytes, each as varint length + record bytes
//   fences   u64 per index block: the first hash in the block; then u64 per block: the block's checksum
//   index    u64 Spec hash per record, sorted by (Spec hash, Spec bytes), blocks of kBlockEntries
//   pages    PageEntry per page (24 bytes): file offset, compressed length, index of its first record, checksum
//   filter   u64 per chunk of filter lines: its checksum; then, 64-byte aligned, the Bloom filter's lines
//            (segment_filter.h)
// A record is varint Spec length, the Spec's bytes (stable_hash.h), then its frontier: varint entry count; per
// entry the action (action_codec.h), the cost as a zigzag varint delta from the previous entry's, the peak as a
// byte with one bit per level in use and those levels' byte counts as varints, and a varint count of child
// entry indices, each a varint.
// A query reads the prefix, header, fences, page table and filter checksums (checked at open), then one filter
// chunk; only when the filter passes (every present Spec, about 1% of absent ones), one index block and one page:
// never the whole file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cache/frontier.h"
#include "impl/cost.h"
#include "spec/error.h"
#include "spec/target.h"

namespace kriek {

inline constexpr char kTableMagic[8] = {'K', 'R', 'I', 'E', 'K', 'T', 'B', 'L'};
/// Bumped whenever the layout above, the Spec encoding or the frontier encoding changes, or what a search finds
/// for a Spec (the tile grid, which Specs are canonical): a table must hold what a fresh search would.
/// 2: the grid keeps 3*2^i sizes above 6 only where they divide the extent; serial_only and alignment are
/// canonical where they cannot matter (sched/canonical.h).
/// 3: rows along the innermost dimension and rows inside an aligned panel are contiguous (impl/tiling.h), so
/// more Specs move to VRF; blocked L1 operands keep their alignment in canonical Specs.
/// 4: a table is a directory of segments; records are varint-coded in zstd-compressed pages.
/// 5: Conv has strides and padding (the Spec encoding), split has an axis, to_matmul and pad_image exist.
/// 6: a Bloom filter per segment.
/// 7: a strided operand is aligned only when every run of it starts on a line (TensorSpec::aligned), so tiles of
/// matrices whose rows are not whole lines are unaligned.
/// 8: a move's action records whether it copies where an alias could serve (MoveTo::copy).
/// 9: a strided operand knows how many innermost dimensions its runs span (TensorSpec::run_dims).
inline constexpr std::uint32_t kTableFormatVersion = 9;
inline constexpr std::size_t kPrefixBytes = 16;
/// Index entries per checksummed block: a query verifies one block (2 KiB), not the whole index.
inline constexpr std::uint32_t kBlockEntries = 256;
/// Uncompressed bytes after which a page is closed: a query decompresses one page.
inline constexpr std::size_t kPageBytes = 16 * 1024;
/// Largest page a reader accepts (a page holds at least one record, which may exceed kPageBytes).
inline constexpr std::size_t kMaxPageBytes = std::size_t{64} << 20;

/// A table that cannot be used as it is on disk. The kind lets the default table, which is a cache, be set
/// aside or replaced, where a table the user named is an error.
class TableError : public UserError {
 public:
  enum class Kind : std::uint8_t {
    missing,      ///< no table at the path
    not_a_table,  ///< something else is there (never to be deleted by kriek)
    corrupted,    ///< a damaged or truncated segment
    stale,        ///< another format version, target, cost model or vocabulary
  };
  TableError(Kind kind, const std::string& message) : UserError(message), kind(kind) {}
  Kind kind;
};

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

struct SegmentHeader {
  TableIdentity identity;
  std::uint64_t entry_count = 0;
  std::uint32_t block_entries = kBlockEntries;
  std::uint64_t page_count = 0;
  std::uint64_t pages_offset = 0;
  std::uint64_t fences_offset = 0;
  std::uint64_t index_offset = 0;
  std::uint64_t page_table_offset = 0;
  std::uint64_t filter_offset = 0;  ///< of the filter's lines; their chunk checksums end before it, 8-aligned
  std::uint64_t filter_lines = 0;   ///< filter_lines(entry_count)
  std::uint64_t file_size = 0;
  /// stable_hash of the fences, the block checksums, the page table and the filter's chunk checksums together.
  std::uint64_t fences_checksum = 0;
  /// Seconds since the epoch when the segment was written (gc's age of Specs no root reaches).
  std::uint64_t created = 0;

  std::uint64_t block_count() const { return (entry_count + block_entries - 1) / block_entries; }
  template <class Archive> void serialize(Archive& ar) {
    ar(identity, entry_count, block_entries, page_count, pages_offset, fences_offset, index_offset,
       page_table_offset, filter_offset, filter_lines, file_size, fences_checksum, created);
  }
};

/// One page's entry in the page table, stored as 24 little-endian bytes.
struct PageEntry {
  std::uint64_t offset = 0;
  std::uint32_t length = 0;       ///< compressed bytes
  std::uint32_t first_entry = 0;  ///< index of its first record
  std::uint64_t checksum = 0;     ///< stable_hash of the compressed bytes
};
inline constexpr std::size_t kPageEntryBytes = 24;

/// Appends `v` as a LEB128 varint.
void put_varint(std::string& out, std::uint64_t v);
/// Reads a LEB128 varint at `at` of `bytes`, advancing `at`; throws UserError when it runs past the end.
std::uint64_t get_varint(std::string_view bytes, std::size_t& at);

/// Appends the record of a Spec (its bytes) and its frontier to `out`.
void append_record(std::string& out, std::string_view spec_bytes, const Frontier& frontier);
/// Appends the frontier part of a record (what record_frontier_bytes returns) to `out`.
void append_frontier(std::string& out, const Frontier& frontier);
/// The record of a Spec (its bytes) and its frontier.
inline std::string encode_record(std::string_view spec_bytes, const Frontier& frontier) {
  std::string out;
  append_record(out, spec_bytes, frontier);
  return out;
}
/// The Spec bytes of a record; throws UserError when the record is too short for its own length field.
std::string_view record_spec(std::string_view record);
/// The frontier of a record; throws UserError when it does not decode.
Frontier decode_frontier(std::string_view record);
/// The frontier from the frontier part of a record (record_frontier_bytes).
Frontier decode_frontier_bytes(std::string_view bytes);
/// The frontier part of a record, as bytes (equal frontiers have equal bytes).
std::string_view record_frontier_bytes(std::string_view record);

}  // namespace kriek
