// Packing a frontier into its points and its encoded decisions.
#include "cache/packed_frontier.h"

#include "cache/format.h"

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

}  // namespace kriek
