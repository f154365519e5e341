// The Bloom filter of a segment (format.h): a lookup of a Spec the segment does not hold, which is every lookup
// of an uncached search, answers from one 64-byte line of the filter instead of reading the fences, an index
// block and verifying its checksum. A blocked filter: each Spec hash selects one line and sets kFilterProbes of
// its 512 bits, so a query touches one cache line. At kFilterBitsPerSpec bits per Spec about 1% of absent Specs
// pass (and are then looked up in the index as before); a present Spec always passes. The writer and the reader
// share these functions: the bits a hash sets are part of the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kriek {

inline constexpr std::size_t kFilterLineBytes = 64;
inline constexpr std::uint64_t kFilterBitsPerSpec = 10;
inline constexpr int kFilterProbes = 7;
/// Lines per checksummed chunk of the filter (4 KiB): a query verifies one chunk, not the whole filter.
inline constexpr std::uint64_t kFilterChunkLines = 64;

/// Lines of the filter of a segment of `entries` Specs (none for an empty segment).
inline std::uint64_t filter_lines(std::uint64_t entries) {
  return (entries * kFilterBitsPerSpec + 8 * kFilterLineBytes - 1) / (8 * kFilterLineBytes);
}
inline std::uint64_t filter_chunks(std::uint64_t lines) { return (lines + kFilterChunkLines - 1) / kFilterChunkLines; }

/// The line of a filter of `lines` lines that the Spec hash `hash` selects (its high bits, by multiply-shift).
inline std::uint64_t filter_line(std::uint64_t hash, std::uint64_t lines) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(hash) * lines) >> 64);
}

/// Calls `f(word, mask)` for each of the kFilterProbes bits of `hash` in its line: word 0-7, one bit of it. The
/// bits come from a remix of the hash (its high bits already chose the line), 9 bits per probe.
template <class F>
void for_each_filter_bit(std::uint64_t hash, F f) {
  std::uint64_t bits = (hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9ULL;
  bits ^= bits >> 32;
  for (int i = 0; i < kFilterProbes; ++i, bits >>= 9) {
    f(static_cast<std::size_t>((bits >> 6) & 7), std::uint64_t{1} << (bits & 63));
  }
}

/// Sets the bits of `hash` in `line` (kFilterLineBytes bytes, little-endian words).
inline void filter_add(char* line, std::uint64_t hash) {
  for_each_filter_bit(hash, [&](std::size_t word, std::uint64_t mask) {
    std::uint64_t w;
    std::memcpy(&w, line + 8 * word, 8);
    w |= mask;
    std::memcpy(line + 8 * word, &w, 8);
  });
}

/// False when `hash` is certainly not among the hashes added to `line`.
inline bool filter_may_contain(const char* line, std::uint64_t hash) {
  bool all = true;
  for_each_filter_bit(hash, [&](std::size_t word, std::uint64_t mask) {
    std::uint64_t w;
    std::memcpy(&w, line + 8 * word, 8);
    all = all && (w & mask) != 0;
  });
  return all;
}

}  // namespace kriek
