// A padded conv's taps one filter row (or column) at a time, each over only the outputs whose windows read the
// image there, not its zero padding (TapSplit): which outputs and image rows each tap has, the Specs of a TapSplit
// node's children, and the boxes of the operands each is given, for every walker of Impl trees.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/node.h"
#include "spec/conv_geometry.h"

namespace kriek {

/// The word of a conv's filter dimension `dim` (0 rows, 1 columns) in printed Impls, action text and the REPL:
/// "fh", "fw" ("dim N" for another); and back (nullopt for a word that names neither).
std::string filter_dim_word(std::size_t dim);
std::optional<std::uint8_t> filter_dim_of(std::string_view word);

/// One tap of a TapSplit along a spatial dimension: its filter index `tap`, the outputs [out_first, out_first +
/// outputs) whose window reads image row (or column) output * stride + tap - pad inside the image, and the image
/// rows [image_first, image_first + image_rows) those read.
struct TapRange {
  std::int64_t tap = 0;
  std::int64_t out_first = 0;
  std::int64_t outputs = 0;
  std::int64_t image_first = 0;
  std::int64_t image_rows = 0;
};

/// The taps along spatial dimension `s` (0 rows, 1 columns) of `g` that read any of the image, in tap order (a
/// tap whose every window falls in the padding has none).
std::vector<TapRange> tap_ranges(const ConvGeometry& g, std::size_t s);

/// The boxes of the image, the filters and the output that each child of a TapSplit of conv `spec` is given, in
/// child order.
std::vector<std::array<Box, 3>> tap_boxes(const Spec& spec, const TapSplit& taps);

/// The Specs of a TapSplit's children: per tap range, the conv (accumulating, as `spec` does) of that tap's filter
/// row or column on the image rows and the output rows it has, with no padding along the split dimension.
std::vector<Spec> tap_child_specs(const Spec& spec, const TapSplit& taps);

/// What each child of a TapSplit of `spec` is given: sub-views of `ops` (image, filters, output) at tap_boxes,
/// made by `sub_at(view, origin, shape)` (the interpreter's and the code generator's views take their origins in
/// different types).
template <class V, class SubAt>
std::vector<std::vector<V>> tap_operands(const Spec& spec, const TapSplit& taps, const std::vector<V>& ops,
                                         SubAt sub_at) {
  std::vector<std::vector<V>> children;
  for (const auto& boxes : tap_boxes(spec, taps)) {
    std::vector<V> child;
    for (std::size_t i = 0; i < boxes.size(); ++i) child.push_back(sub_at(ops.at(i), boxes[i].origin, boxes[i].shape));
    children.push_back(std::move(child));
  }
  return children;
}

}  // namespace kriek
