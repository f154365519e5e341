// PackedFrontier: a solved Spec's frontier as the search keeps it in memory. A parent's fold reads only each
// entry's cost and peak, so those are one array of points; the decisions (each entry's action and chosen child
// entries) are kept as the table's frontier bytes (format.h), which a rebuild decodes and a save copies as they
// are. A Frontier takes about 190 bytes per entry in three allocations (the entry, its child indices, a tile's
// shape); packed it takes the 32-byte point and about 40 bytes of record, in two allocations per Spec.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cache/frontier.h"
#include "impl/memory.h"
#include "spec/error.h"

namespace kriek {

/// The cost and peak memory of one frontier entry, in 32 bytes: main memory's peak in 64 bits, each bounded level's
/// (a cache's or a register file's, never past its capacity in a frontier) in 32. Folds read millions of them; at
/// 48 bytes (a MemoryUse) the first reads of children's points were 29% of a search's misses past L2.
struct FrontierPoint {
  Cost cost = 0;
  std::int64_t unbounded = 0;  ///< GL
  std::array<std::uint32_t, kLevelCount - 1> bounded{};

  FrontierPoint() = default;
  FrontierPoint(Cost c, const MemoryUse& peak) : cost(c), unbounded(peak[Level::GL]) {
    for (std::size_t l = 1; l < kLevelCount; ++l) {
      KRIEK_ASSERT(peak.bytes[l] >= 0 && peak.bytes[l] <= std::int64_t{UINT32_MAX}, "a frontier entry's peak of ",
                   peak.bytes[l], " bytes in a bounded level");
      bounded[l - 1] = static_cast<std::uint32_t>(peak.bytes[l]);
    }
  }
  MemoryUse peak() const {
    MemoryUse m;
    m.bytes[0] = unbounded;
    for (std::size_t l = 1; l < kLevelCount; ++l) m.bytes[l] = bounded[l - 1];
    return m;
  }
};
static_assert(std::is_trivially_copyable_v<FrontierPoint>, "spill() copies points as bytes");
static_assert(sizeof(FrontierPoint) == 32, "a point is half a line");
static_assert(static_cast<int>(Level::GL) == 0, "GL is the unbounded level, first");

class PackedFrontier {
 public:
  PackedFrontier() = default;
  /// Packs `frontier` (its bytes as encode_frontier writes them).
  explicit PackedFrontier(const Frontier& frontier);
  /// Packs a frontier read as bytes (a table record's record_frontier_bytes); throws UserError when they do not
  /// decode.
  static PackedFrontier from_bytes(std::string_view bytes);

  bool empty() const { return points_.empty(); }
  std::size_t size() const { return points_.size(); }
  /// Entry by entry, in the frontier's order (cost ascending).
  std::span<const FrontierPoint> points() const { return points_; }
  /// The frontier's encoding (format.h's frontier bytes).
  std::string_view bytes() const { return bytes_; }
  /// The frontier with its decisions, decoded.
  Frontier unpack() const;
  /// Appends this packed frontier to `out` as raw bytes for this process only (a spill, not the table format).
  void spill(std::string& out) const;
  /// Reads what spill() wrote.
  static PackedFrontier unspill(std::string_view raw);

 private:
  std::vector<FrontierPoint> points_;
  std::string bytes_;
};

}  // namespace kriek
