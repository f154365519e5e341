// TensorSpec: everything a Spec says about one operand: shape, element type, the memory level it lives in, its
// layout, its vector size when in vector registers, whether it is aligned and contiguous, and whether a thread team
// of the kernel writes it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iosfwd>

#include <boost/container_hash/hash.hpp>
#include <cereal/types/vector.hpp>

#include "spec/dtype.h"
#include "spec/layout.h"
#include "spec/level.h"
#include "spec/shape.h"

namespace kriek {

struct TensorSpec {
  Shape shape;
  Dtype dtype = Dtype::f32;
  Level level = Level::GL;
  Layout layout;
  /// Elements per vector register when level is VRF (e.g. 16 for f32 in AVX-512); 0 elsewhere.
  std::uint32_t vector_size = 0;
  /// The first element is aligned to the level's line (or vector) size; of a strided operand, the first element of
  /// every run (its strides outside the innermost dimension are whole lines: not so a tile of a matrix of rows of
  /// 257 floats, whose row k starts 4k bytes past a line).
  bool aligned = true;
  /// The elements occupy one gap-free range of the buffer (a tile of a wider buffer usually does not).
  bool contiguous = true;
  /// Of a strided row-major operand: how many of its innermost dimensions its gap-free runs span (each of them but
  /// the outermost whole in its buffer): 2 for the interior 1x224x224x3 of a padded 1x230x230x3 image, whose runs
  /// are rows of 224 pixels. 1 when contiguous, for other layouts, and for runs along the innermost dimension only.
  std::uint8_t run_dims = 1;
  /// A buffer this kernel writes on every call for a thread team (a padded image, a packing copy or a pipeline's
  /// intermediate made above a parallel loop): what one core reads of it, another core may have written (the cost
  /// model's cross-core lines). Never set on a caller's operand; canonical_spec clears it where no parallel loop
  /// can follow.
  bool shared = false;

  std::size_t rank() const { return shape.size(); }
  /// Sets `contiguous`, a strided operand's runs along its innermost dimension only (run_dims 1): what a tensor
  /// given a new shape or buffer may claim without knowing more (tile_tensor derives longer runs).
  void set_contiguous(bool dense) {
    contiguous = dense;
    run_dims = 1;
  }
  std::int64_t elements() const { return volume(shape); }
  /// A buffer of its own layout holds exactly its elements, dense and row-major (the arrays reference() takes).
  bool dense_row_major() const {
    return layout.same_placement(Layout::row_major(), shape) && layout.buffer_elements(shape) == elements();
  }
  /// Bytes the tensor's own buffer would take, padding of blocked layouts included.
  std::int64_t bytes() const { return layout.buffer_elements(shape) * static_cast<std::int64_t>(dtype_bytes(dtype)); }
  /// Elements of one gap-free run: all of them when contiguous, else a row along the innermost dimension (cut at
  /// the block of a blocked layout), or the innermost run_dims dimensions' elements.
  std::int64_t run_elements() const {
    if (contiguous || shape.empty()) return elements();
    const std::int64_t row = shape[layout.innermost_dim(rank())];
    if (layout.kind == Layout::Kind::blocked) return std::min<std::int64_t>(row, layout.block);
    std::int64_t run = 1;
    for (std::size_t d = rank() - std::min<std::size_t>(run_dims, rank()); d < rank(); ++d) run *= shape[d];
    return layout.kind == Layout::Kind::row_major ? run : row;
  }
  /// The innermost dimensions its gap-free runs span (row-major): all of them when contiguous. 1 for other
  /// layouts' strided operands (0-dimensional tensors: 0).
  std::size_t dense_dims() const {
    if (contiguous) return rank();
    return layout.kind == Layout::Kind::row_major ? run_dims : 1;
  }
  /// The gap-free runs the elements form in memory: 1 when contiguous, else one per run of run_elements().
  std::int64_t runs() const {
    const std::int64_t row = run_elements();
    return row > 0 ? (elements() + row - 1) / row : 0;
  }

  friend bool operator==(const TensorSpec&, const TensorSpec&) = default;
  friend std::size_t hash_value(const TensorSpec& t) {
    std::size_t seed = boost::hash_range(t.shape.begin(), t.shape.end());
    boost::hash_combine(seed, static_cast<int>(t.dtype));
    boost::hash_combine(seed, static_cast<int>(t.level));
    boost::hash_combine(seed, t.layout);
    boost::hash_combine(seed, t.vector_size);
    boost::hash_combine(seed, t.aligned);
    boost::hash_combine(seed, t.contiguous);
    boost::hash_combine(seed, t.run_dims);
    boost::hash_combine(seed, t.shared);
    return seed;
  }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(shape, dtype, level, layout, vector_size, aligned, contiguous, run_dims, shared);
  }
};

/// Prints the long spec-text form of the operand, e.g. "128x256 f32 GL row".
std::ostream& operator<<(std::ostream& out, const TensorSpec& t);

}  // namespace kriek
