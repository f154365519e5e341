// Sub-views and dense gathers and scatters of interpreter views.
#include "impl/view.h"

namespace kriek {

View View::sub(const Shape& offset, const Shape& extents) const {
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

View whole_view(float* data, const Shape& shape, const Layout& layout) {
  return View{data, shape, layout, Shape(shape.size(), 0), shape};
}

std::vector<float> gather(const View& v) {
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(volume(v.shape)));
  for_each_index(v.shape, [&](const std::int64_t* i) { out.push_back(v.at(i)); });
  return out;
}

void scatter(const View& v, const std::vector<float>& values) {
  KRIEK_ASSERT(static_cast<std::int64_t>(values.size()) == volume(v.shape), "scatter of ", values.size(),
               " values into ", volume(v.shape), " elements");
  std::size_t next = 0;
  for_each_index(v.shape, [&](const std::int64_t* i) { v.at(i) = values[next++]; });
}

void copy_view(const View& from, const View& to) {
  KRIEK_ASSERT(from.shape == to.shape, "copy between views of different shapes");
  for_each_index(from.shape, [&](const std::int64_t* i) { to.at(i) = from.at(i); });
}

}  // namespace kriek
