// The taps of a TapSplit (see taps.h): ranges, boxes and child Specs.
#include "impl/taps.h"

#include <algorithm>

#include "impl/tiling.h"
#include "spec/error.h"

namespace kriek {

std::string filter_dim_word(std::size_t dim) {
  return dim == 0 ? "fh" : dim == 1 ? "fw" : "dim " + std::to_string(dim);
}

std::optional<std::uint8_t> filter_dim_of(std::string_view word) {
  for (std::uint8_t d = 0; d < 2; ++d) {
    if (word == filter_dim_word(d)) return d;
  }
  return std::nullopt;
}

std::vector<TapRange> tap_ranges(const ConvGeometry& g, std::size_t s) {
  const std::int64_t stride = g.stride[s], pad = g.pad[s], image = g.image(s);
  std::vector<TapRange> ranges;
  for (std::int64_t tap = 0; tap < g.filter(s); ++tap) {
    // Output o reads image index o * stride + tap - pad: inside the image from the first o with that >= 0 to the
    // last with it < image.
    const std::int64_t first = tap >= pad ? 0 : (pad - tap + stride - 1) / stride;
    const std::int64_t last_index = image - 1 + pad - tap;
    const std::int64_t end = last_index < 0 ? 0 : std::min(g.out(s), last_index / stride + 1);
    if (end <= first) continue;
    const std::int64_t outputs = end - first;
    ranges.push_back(TapRange{tap, first, outputs, first * stride + tap - pad, (outputs - 1) * stride + 1});
  }
  return ranges;
}

namespace {

ConvGeometry geometry_of(const Spec& spec) {
  const auto* conv = std::get_if<Conv>(&spec.op);
  KRIEK_ASSERT(conv != nullptr, "a taps node implements a conv, not ", op_word(spec.op));
  return conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
}

Box whole_box(const Shape& shape) { return Box{Shape(shape.size(), 0), shape}; }

/// The TensorSpec of box `b` of `t`: alignment from its origin, a multiple of itself along each dimension (of
/// the whole extent where it is 0, so a box at the tensor's start is aligned as the tensor is).
TensorSpec boxed(const TensorSpec& t, const Box& b) {
  Shape step = t.shape;
  for (std::size_t d = 0; d < step.size(); ++d) {
    if (b.origin[d] > 0) step[d] = b.origin[d];
  }
  return tile_tensor(t, b.shape, step);
}

}  // namespace

std::vector<std::array<Box, 3>> tap_boxes(const Spec& spec, const TapSplit& taps) {
  const ConvGeometry g = geometry_of(spec);
  const std::size_t s = taps.dim;
  KRIEK_ASSERT(s < 2, "a taps node splits rows or columns, not dimension ", s);
  std::vector<std::array<Box, 3>> boxes;
  for (const TapRange& r : tap_ranges(g, s)) {
    std::array<Box, 3> b{whole_box(spec.input(0).shape), whole_box(spec.input(1).shape),
                         whole_box(spec.output().shape)};
    b[0].origin[g.row_dim + s] = r.image_first;
    b[0].shape[g.row_dim + s] = r.image_rows;
    b[1].origin[s] = r.tap;
    b[1].shape[s] = 1;
    b[2].origin[g.row_dim + s] = r.out_first;
    b[2].shape[g.row_dim + s] = r.outputs;
    boxes.push_back(b);
  }
  return boxes;
}

std::vector<Spec> tap_child_specs(const Spec& spec, const TapSplit& taps) {
  const auto* conv = std::get_if<Conv>(&spec.op);
  KRIEK_ASSERT(conv != nullptr && conv->accumulate, "a taps node implements a conv that accumulates");
  std::vector<Spec> children;
  for (const auto& boxes : tap_boxes(spec, taps)) {
    Spec child = spec;
    std::get<Conv>(child.op).pad[taps.dim] = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) child.operands[i] = boxed(spec.operands[i], boxes[i]);
    children.push_back(std::move(child));
  }
  return children;
}

}  // namespace kriek
