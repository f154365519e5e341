// slide: preconditions and the slide loop with its window.
#include "sched/slide.h"

#include "sched/support.h"
#include "spec/conv_geometry.h"

namespace kriek {
namespace {

using namespace sched_detail;

std::variant<Loop, NotApplicable> slide_loop(const Slide& a, const Spec& spec, const Target& target) {
  const Conv* conv = leading_conv(spec.op);
  if (conv == nullptr) {
    return not_applicable("slide", 1, "slide needs a conv or a conv with an elementwise epilogue, not ",
                          op_word(spec.op));
  }
  const TensorSpec& img = spec.input(0);
  const TensorSpec& out = spec.output();
  const std::size_t first = conv_row_dim(img.rank());  // the output's row dimension
  if (a.dim < first || a.dim > first + 1) {
    return not_applicable("slide", 2, "dimension ", int(a.dim), " of the output ", shape_text(out.shape),
                          " is not spatial (", first, " or ", first + 1, ")");
  }
  const std::int64_t extent = out.shape[a.dim];
  if (a.size < 1 || a.size >= extent) {
    return not_applicable("slide", 3, "size ", a.size, " is not in [1, ", extent, "), the output's extent in dimension ",
                          int(a.dim));
  }
  if (!target.has_level(a.level)) {
    return not_applicable("slide", 4, "target ", target.name, " has no level ", level_name(a.level));
  }
  if (is_register_level(a.level)) {
    return not_applicable("slide", 5, "a window cannot live in the register level ", level_name(a.level));
  }
  if (target.has_level(img.level) && target.faster(img.level, a.level)) {
    return not_applicable("slide", 6, "the window level ", level_name(a.level), " is slower than the image's ",
                          level_name(img.level));
  }
  if (!layout_valid(a.layout, img.rank())) {
    return not_applicable("slide", 7, "layout ", layout_text(a.layout), " is invalid for the rank-", img.rank(),
                          " image");
  }
  Loop loop;
  loop.kind = LoopKind::slide;
  loop.axes = {LoopAxis{extent, a.size}};
  // The image's rows (columns) with the filter's halo at the stride, the filters whole, the output and an
  // epilogue's operands along the output (a bias broadcast along the dimension stays whole).
  OperandMap om(out.rank(), DimMap{-1, 0, 1});
  om[a.dim] = DimMap{0, 0, 1};
  loop.operands = output_tile_maps(spec, om);
  loop.window = SlideWindow{0, a.level, a.layout, {}};
  if (conv->padded()) {
    const Shape border = pad_interior_origin(spec);
    loop.window->border.assign(border.begin(), border.end());
  }
  if (vrf_operand_split(spec, loop) >= 0) {
    return not_applicable("slide", 8, "the output (", shape_text(out.shape), " in VRF, vector size ",
                          out.vector_size, ") would be cut into partial vector registers");
  }
  return loop;
}

}  // namespace

std::optional<NotApplicable> slide_fails(const Slide& action, const Spec& spec, const Target& target) {
  auto loop = slide_loop(action, spec, target);
  if (auto* na = std::get_if<NotApplicable>(&loop)) return *na;
  return std::nullopt;
}

ExpandResult expand_slide(const Slide& action, const Spec& spec, const Target& target) {
  auto loop = slide_loop(action, spec, target);
  if (auto* na = std::get_if<NotApplicable>(&loop)) return *na;
  return expansion(spec, std::get<Loop>(std::move(loop)));
}

}  // namespace kriek
