// Views of tensors for the interpreter: a window of shape `shape` at `origin` in a real buffer of shape `buffer`
// laid out in `layout`. Tiles, moves and windows are views; element access goes through Layout::offset, so a
// wrong layout or origin reads the wrong element.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "spec/error.h"
#include "spec/layout.h"

namespace kriek {

inline constexpr std::size_t kMaxViewRank = 8;
using Index = std::array<std::int64_t, kMaxViewRank>;

struct View {
  float* base = nullptr;
  Shape buffer;  ///< the shape of the whole real buffer
  Layout layout;
  Shape origin;  ///< where the view starts in the buffer
  Shape shape;   ///< the view's extents

  std::size_t rank() const { return shape.size(); }
  /// The element at `index` (relative to the view's origin, rank() entries).
  float& at(const std::int64_t* index) const {
    Index absolute{};
    for (std::size_t d = 0; d < shape.size(); ++d) absolute[d] = origin[d] + index[d];
    return base[layout.offset(buffer, absolute.data())];
  }
  /// The sub-view at `offset` (relative to this view) of shape `extents`; asserts that it lies inside.
  View sub(const Shape& offset, const Shape& extents) const;
};

/// A whole buffer of `shape` in `layout` starting at `data`.
inline View whole_view(float* data, const Shape& shape, const Layout& layout = Layout::row_major());

/// Calls f(index) for every index of `shape` in row-major order (once for rank 0).
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  KRIEK_ASSERT(shape.size() <= kMaxViewRank, "rank ", shape.size(), " exceeds ", kMaxViewRank);
  for (auto e : shape) {
    if (e <= 0) return;
  }
  Index index{};
  while (true) {
    f(static_cast<const std::int64_t*>(index.data()));
    std::size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++index[d] < shape[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (shape.empty()) return;
  }
}

/// The view's elements, dense and row-major.
inline std::vector<float> gather(const View& v);
/// Writes dense row-major `values` into the view.
inline void scatter(const View& v, const std::vector<float>& values);
/// to[i] = from[i] for every index (equal shapes).
inline void copy_view(const View& from, const View& to);

// --- Definitions.

inline View View::sub(const Shape& offset, const Shape& extents) const {
  KRIEK_ASSERT(offset.size() == rank() && extents.size() == rank(), "sub-view rank ", extents.size(), " of rank ",
               rank());
  View v = *this;
  for (std::size_t d = 0; d < rank(); ++d) {
    KRIEK_ASSERT(offset[d] >= 0 && offset[d] + extents[d] <= shape[d], "sub-view dim ", d, " [", offset[d], ", ",
                 offset[d] + extents[d], ") outside extent ", shape[d]);
    v.origin[d] += offset[d];
  }
  v.shape = extents;
  return v;
}

inline View whole_view(float* data, const Shape& shape, const Layout& layout) {
  return View{data, shape, layout, Shape(shape.size(), 0), shape};
}

inline std::vector<float> gather(const View& v) {
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(volume(v.shape)));
  for_each_index(v.shape, [&](const std::int64_t* i) { out.push_back(v.at(i)); });
  return out;
}

inline void scatter(const View& v, const std::vector<float>& values) {
  KRIEK_ASSERT(static_cast<std::int64_t>(values.size()) == volume(v.shape), "scatter of ", values.size(),
               " values into ", volume(v.shape), " elements");
  std::size_t next = 0;
  for_each_index(v.shape, [&](const std::int64_t* i) { v.at(i) = values[next++]; });
}

inline void copy_view(const View& from, const View& to) {
  KRIEK_ASSERT(from.shape == to.shape, "copy between views of different shapes");
  for_each_index(from.shape, [&](const std::int64_t* i) { to.at(i) = from.at(i); });
}

}  // namespace kriek
