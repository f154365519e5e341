// How a tensor's logical indices map to memory: row-major, column-major, or blocked (one dimension split into
// outer panels and an innermost block, e.g. a matrix's columns packed by the vector width).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/container_hash/hash.hpp>

#include "spec/shape.h"

namespace kriek {

/// Row-major: last dimension fastest. Column-major: first dimension fastest. Blocked{dim, block}: dimension
/// `dim` is split into dim/block panels (outermost) and a block of `block` elements (innermost); the other
/// dimensions are row-major in between. For a K×N matrix, blocked(1, 16) stores [N/16][K][16]: panels of 16
/// columns, each panel's rows contiguous. A dimension that `block` does not divide is padded to a whole panel.
struct Layout {
  enum class Kind : std::uint8_t { row_major, col_major, blocked };
  Kind kind = Kind::row_major;
  std::uint8_t dim = 0;      ///< the blocked dimension (blocked only)
  std::uint32_t block = 0;   ///< elements per block (blocked only)

  static Layout row_major() { return {}; }
  static Layout col_major() { return {Kind::col_major, 0, 0}; }
  static Layout blocked(std::uint8_t dim, std::uint32_t block) { return {Kind::blocked, dim, block}; }

  /// Elements a buffer of this layout holds for `shape`, padding included.
  std::int64_t buffer_elements(const Shape& shape) const;
  /// Element offset of `index` in a buffer of shape `buffer` laid out this way.
  std::int64_t offset(const Shape& buffer, const std::int64_t* index) const;
  /// The dimension that is contiguous in memory (stride 1) for a tensor of rank `rank`.
  std::size_t innermost_dim(std::size_t rank) const;
  /// True when this layout and `other` put every element of `shape` at the same offset.
  bool same_placement(const Layout& other, const Shape& shape) const;

  friend bool operator==(const Layout&, const Layout&) = default;
  friend std::size_t hash_value(const Layout& l) {
    std::size_t seed = 0;
    boost::hash_combine(seed, static_cast<int>(l.kind));
    boost::hash_combine(seed, l.dim);
    boost::hash_combine(seed, l.block);
    return seed;
  }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(kind, dim, block);
  }
};

/// Text form: "row", "col", "blk<dim>:<block>" (e.g. "blk1:16").
std::string layout_text(const Layout& l);

}  // namespace kriek
