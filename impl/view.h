// Views of tensors for the interpreter: a window of shape `shape` at `origin` in a real buffer of shape `buffer`
// laid out in `layout`. Tiles, moves and windows are views; element access goes through Layout::offset, so a
// wrong layout or origin reads the wrong element. A view may also walk its buffer differently (ViewDim): drop
// unit dimensions and step through a buffer dimension with a factor, as a conv's image seen as a matmul operand
// does; the code generator's views (codegen/c_view.h) follow the same rule.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "spec/error.h"
#include "spec/layout.h"

namespace kriek {


/// How one dimension of a view walks its buffer: index i of it is `i * step` elements along buffer dimension `dim`.
/// A walk that `spans` outer dimensions runs on past the end of `dim` into the `spans` buffer dimensions before it,
/// as one row-major run: index i is the i-th position of the flattened dimensions (a conv's output rows and
/// columns as one matmul M). It needs a row-major view that is dense over those dimensions (the caller's
/// precondition): then a row-major offset, linear in every coordinate, wraps exactly into the next row.
struct ViewDim {
  std::size_t dim = 0;
  std::int64_t step = 1;
  std::size_t spans = 0;
  friend bool operator==(const ViewDim&, const ViewDim&) = default;
};

struct View {
  float* base = nullptr;
  Shape buffer;  ///< the shape of the whole real buffer
  Layout layout;
  Shape origin;  ///< where the view starts in the buffer (one entry per buffer dimension)
  Shape shape;   ///< the view's extents
  /// How each view dimension walks the buffer; empty: dimension d walks buffer dimension d with step 1.
  std::vector<ViewDim> dims;

  std::size_t rank() const { return shape.size(); }
  /// The element at `index` (relative to the view's origin, rank() entries).
  float& at(const std::int64_t* index) const {
    Index absolute{};
    for (std::size_t d = 0; d < origin.size(); ++d) absolute[d] = origin[d];
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (dims.empty()) absolute[d] += index[d];
      else absolute[dims[d].dim] += index[d] * dims[d].step;
    }
    return base[layout.offset(buffer, absolute.data())];
  }
  /// The sub-view at `offset` (relative to this view) of shape `extents`; asserts that it lies inside.
  View sub(const Shape& offset, const Shape& extents) const;
};

/// The view `v` seen through `map`: dimension d of the result walks v's dimension map[d].dim with map[d].step
/// times its step, with extent shape[d]. v's dimensions that no result dimension walks must have extent 1 (they
/// are dropped); a walked one must hold the result's extent. Works on the interpreter's and the code
/// generator's views alike (both have `origin`, `shape` and `dims`).
template <class V>
V reshaped(const V& v, const std::vector<ViewDim>& map, const Shape& shape) {
  KRIEK_ASSERT(map.size() == shape.size(), "reshape of ", map.size(), " dimensions to rank ", shape.size());
  std::vector<bool> walked(v.rank(), false);
  V out = v;
  out.shape = shape;
  out.dims.clear();
  // A buffer whose layout places its elements where row-major does (a column-major 1x3x1) is walked as row-major:
  // a walk across dimensions wraps into the next by row-major offsets.
  if (out.layout.kind != Layout::Kind::row_major && out.layout.same_placement(Layout::row_major(), v.buffer)) {
    out.layout = Layout::row_major();
  }
  for (std::size_t d = 0; d < map.size(); ++d) {
    const ViewDim& m = map[d];
    KRIEK_ASSERT(m.dim < v.rank() && m.spans <= m.dim, "reshape walks dimension ", m.dim, " (and ", m.spans,
                 " before it) of a rank-", v.rank(), " view");
    std::int64_t extent = 1;
    for (std::size_t s = m.dim - m.spans; s <= m.dim; ++s) {
      extent *= v.shape[s];
      walked[s] = true;
    }
    KRIEK_ASSERT(shape[d] <= 1 || (shape[d] - 1) * m.step < extent, "reshape dimension ", d, " of ", shape[d],
                 " steps of ", m.step, " leaves the extent ", extent);
    // The walk steps along the innermost of its dimensions whose extent is not 1 (`along`), and wraps only when one
    // before it has more: a walk whose other dimensions have extent 1 is a walk along that one alone (a flat 1x1
    // tile of a column-major output seen as a matmul's; an image's 144 pixels and its one channel as a matmul's
    // 144x1 lhs, flattened).
    std::size_t along = m.dim;
    while (along > m.dim - m.spans && v.shape[along] == 1) --along;
    bool wraps = false;
    for (std::size_t s = m.dim - m.spans; s < along; ++s) wraps |= v.shape[s] > 1;
    if (wraps) {
      KRIEK_ASSERT(out.layout.kind == Layout::Kind::row_major && m.step == 1,
                   "a walk across dimensions needs a row-major view and steps of one element");
      if (v.dims.empty()) {
        out.dims.push_back(ViewDim{along, 1, along - (m.dim - m.spans)});
        continue;
      }
      // Across dimensions of a view that walk consecutive buffer dimensions one element a step (a flatten of a
      // conv's output seen as a matmul's), buffer dimensions of extent 1 between them aside (its pixels 3x1 seen as
      // a matmul's 3 rows walk the first alone): the same walk across those buffer dimensions. View dimensions of
      // extent 1 are never walked past.
      const ViewDim& last = v.dims[along];
      std::size_t lowest = last.dim - last.spans;
      for (std::size_t s = along; s-- > m.dim - m.spans;) {
        if (v.shape[s] == 1) continue;
        const ViewDim& w = v.dims[s];
        bool next = w.step == 1 && w.dim < lowest;  // buffer dimensions of extent 1 between the two are no gap
        for (std::size_t b = w.dim + 1; next && b < lowest; ++b) next = v.buffer[b] == 1;
        KRIEK_ASSERT(next, "a walk across view dimension ", s, ", which does not continue into the buffer dimension "
                     "before ", lowest);
        lowest = w.dim - w.spans;
      }
      KRIEK_ASSERT(last.step == 1, "a walk across dimensions from a view dimension of step ", last.step);
      out.dims.push_back(ViewDim{last.dim, 1, last.dim - lowest});
      continue;
    }
    const ViewDim inner = v.dims.empty() ? ViewDim{along, 1} : v.dims[along];
    out.dims.push_back(ViewDim{inner.dim, inner.step * m.step, inner.spans});
  }
  for (std::size_t d = 0; d < v.rank(); ++d) {
    KRIEK_ASSERT(walked[d] || v.shape[d] == 1, "reshape drops dimension ", d, " of extent ", v.shape[d]);
  }
  return out;
}

/// A whole buffer of `shape` in `layout` starting at `data`.
inline View whole_view(float* data, const Shape& shape, const Layout& layout = Layout::row_major());

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
    if (dims.empty()) v.origin[d] += offset[d];
    else v.origin[dims[d].dim] += offset[d] * dims[d].step;
  }
  v.shape = extents;
  return v;
}

inline View whole_view(float* data, const Shape& shape, const Layout& layout) {
  return View{data, shape, layout, Shape(shape.size(), 0), shape, {}};
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
