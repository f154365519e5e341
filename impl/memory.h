// Memory use per level: what an Impl keeps live at each level (its own buffers plus the largest peak among its
// children), compared against a target's capacities or a user's limits.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

#include <boost/container_hash/hash.hpp>
#include <cereal/types/array.hpp>

#include "spec/level.h"

namespace kriek {

struct Target;

/// Bytes per Level (indexed by the Level enum).
struct MemoryUse {
  std::array<std::int64_t, kLevelCount> bytes{};

  std::int64_t& operator[](Level l) { return bytes[static_cast<std::size_t>(l)]; }
  std::int64_t operator[](Level l) const { return bytes[static_cast<std::size_t>(l)]; }

  /// Elementwise maximum (peaks of children that run one after another).
  MemoryUse max(const MemoryUse& o) const;
  /// Elementwise sum (a node's own buffers on top of its children's peak).
  MemoryUse plus(const MemoryUse& o) const;
  /// Every level at most `limits` (a limit of 0 means unbounded).
  bool fits(const MemoryUse& limits) const;
  /// No level uses more than in `o`.
  bool at_most(const MemoryUse& o) const;
  /// The coarse view the search compares: each bounded level rounded up to a power of two, main memory (GL,
  /// unbounded) dropped. Frontiers keep one entry per such memory class.
  MemoryUse coarse() const;

  friend bool operator==(const MemoryUse&, const MemoryUse&) = default;
  friend auto operator<=>(const MemoryUse&, const MemoryUse&) = default;
  friend std::size_t hash_value(const MemoryUse& m) { return boost::hash_range(m.bytes.begin(), m.bytes.end()); }
  template <class Archive> void serialize(Archive& ar) { ar(bytes); }
};

/// The target's capacities as limits (0 for unbounded levels).
MemoryUse capacities(const Target& target);

/// Parses limits such as "L1=32K,L2=1M,VRF=2048" onto `base`; throws UserError naming a bad entry.
MemoryUse parse_memory_limits(const std::string& text, MemoryUse base);

/// Prints the bounded levels, e.g. "L2=65536 L1=12288 VRF=1792 RF=0".
std::ostream& operator<<(std::ostream& out, const MemoryUse& m);

}  // namespace kriek
