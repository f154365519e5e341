// The one stable 64-bit hash: the same in every build, on every run and in every process (unlike std::hash or
// boost::hash, whose values may change with the library or the seed). The DP table's keys and checksums, the
// fingerprints of a Target, a CostModel and the vocabulary all use it; with the canonical byte encoding of a Spec
// that the table hashes and compares, it is part of the table format: changing either needs a new version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/spec.h"

namespace kriek {

/// MurmurHash3's 64-bit finalizer: every input bit moves every output bit (stable_hash's last step; the memo's map
/// mixes boost's Spec hash with it, synth/spec_map.h).
std::uint64_t fmix64(std::uint64_t x);

/// Hash of `size` bytes: 8-byte little-endian words mixed by multiply-rotate, finished with MurmurHash3's fmix64.
/// About one byte per cycle; used for Spec keys and for every checksum in the table.
std::uint64_t stable_hash(const void* data, std::size_t size, std::uint64_t seed = 0);
inline std::uint64_t stable_hash(std::string_view bytes, std::uint64_t seed = 0) {
  return stable_hash(bytes.data(), bytes.size(), seed);
}

/// A digest of a sequence of numbers and strings (the fingerprints): each added as little-endian bytes (strings
/// with their length first), hashed with stable_hash.
class StableHasher {
 public:
  StableHasher& add(std::uint64_t v);
  StableHasher& add(std::string_view s);
  std::uint64_t value() const { return stable_hash(bytes_); }

 private:
  std::string bytes_;
};

/// A hash or fingerprint as file names, manifests and cache keys write it: 16 lowercase hex digits, zero-padded.
std::string hex16(std::uint64_t v);

/// The cereal binary encoding of the Spec (written by ByteWriter): equal Specs, and only they, have equal encodings.
std::string spec_bytes(const Spec& spec);
/// Decodes spec_bytes; throws UserError when the bytes do not decode (a corrupted record).
Spec spec_from_bytes(std::string_view bytes);

/// stable_hash of spec_bytes: the key of the table's index.
inline std::uint64_t spec_hash(const Spec& spec) { return stable_hash(spec_bytes(spec)); }

}  // namespace kriek
