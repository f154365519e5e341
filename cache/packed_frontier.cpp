// Packing a frontier into its points and its encoded decisions.
#include "cache/packed_frontier.h"

#include <cstring>

#include "cache/format.h"
#include "spec/error.h"

namespace kriek {

PackedFrontier::PackedFrontier(const Frontier& frontier) {
  points_.reserve(frontier.entries.size());
  for (const FrontierEntry& e : frontier.entries) points_.push_back({e.cost, e.peak});
  append_frontier(bytes_, frontier);
  bytes_.shrink_to_fit();
}

PackedFrontier PackedFrontier::from_bytes(std::string_view bytes) {
  PackedFrontier p;
  const Frontier f = decode_frontier_bytes(bytes);
  p.points_.reserve(f.entries.size());
  for (const FrontierEntry& e : f.entries) p.points_.push_back({e.cost, e.peak});
  p.bytes_ = bytes;
  return p;
}

Frontier PackedFrontier::unpack() const { return decode_frontier_bytes(bytes_); }

void PackedFrontier::spill(std::string& out) const {
  const std::uint64_t n = points_.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(reinterpret_cast<const char*>(points_.data()), n * sizeof(FrontierPoint));
  out.append(bytes_);
}

PackedFrontier PackedFrontier::unspill(std::string_view raw) {
  std::uint64_t n = 0;
  KRIEK_ASSERT(raw.size() >= sizeof n, "a spilled frontier of ", raw.size(), " bytes");
  std::memcpy(&n, raw.data(), sizeof n);
  const std::size_t points = n * sizeof(FrontierPoint);
  KRIEK_ASSERT(raw.size() >= sizeof n + points, "a spilled frontier of ", n, " entries in ", raw.size(), " bytes");
  PackedFrontier p;
  p.points_.resize(n);
  std::memcpy(p.points_.data(), raw.data() + sizeof n, points);
  p.bytes_ = raw.substr(sizeof n + points);
  return p;
}

}  // namespace kriek
