// pad_image: preconditions and the PadOp node.
#include "sched/pad_image.h"

#include "sched/support.h"
#include "spec/conv_geometry.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// The buffer of the image as the conv reads it at the action's level and layout (assumes (1) and (2)).
TensorSpec padded_buffer(const PadImage& a, const Spec& spec) {
  const TensorSpec& img = spec.input(0);
  TensorSpec buffer = img;
  buffer.shape = padded_image_shape(spec);
  buffer.level = a.level;
  buffer.layout = a.layout;
  buffer.vector_size = 0;
  buffer.aligned = true;
  buffer.set_contiguous(true);
  buffer.shared = false;  // a buffer of its own; the body reads it as shared where a team fills it (pad_child_specs)
  return buffer;
}

}  // namespace

std::optional<NotApplicable> pad_image_fails(const PadImage& a, const Spec& spec, const Target& target) {
  const Conv* conv = leading_conv(spec.op);
  if (conv == nullptr) {
    return not_applicable("pad_image", 1, "pad_image needs a conv or a conv with an elementwise epilogue, not ",
                          op_word(spec.op));
  }
  if (!conv->padded() && !pad_unstrides(spec)) {
    return not_applicable("pad_image", 2, "the conv has no padding and is no strided conv with a 1x1 window on a "
                          "row-major image of channels");
  }
  if (!target.has_level(a.level) || is_register_level(a.level)) {
    return not_applicable("pad_image", 3, "the buffer needs a memory level of target ", target.name, ", not ",
                          level_name(a.level));
  }
  const TensorSpec& img = spec.input(0);
  if (target.has_level(img.level) && target.faster(img.level, a.level)) {
    return not_applicable("pad_image", 4, "level ", level_name(a.level), " is slower than the image's ",
                          level_name(img.level));
  }
  if (!layout_valid(a.layout, img.rank())) {
    return not_applicable("pad_image", 5, "layout ", layout_text(a.layout), " is invalid for the rank-", img.rank(),
                          " image");
  }
  const TensorSpec buffer = padded_buffer(a, spec);
  const std::int64_t capacity = target.level(a.level).capacity;
  if (capacity > 0 && buffer.bytes() > capacity) {
    return not_applicable("pad_image", 6, "the padded image ", shape_text(buffer.shape), " takes ", buffer.bytes(),
                          " bytes but ", level_name(a.level), " holds ", capacity);
  }
  return std::nullopt;
}

ExpandResult expand_pad_image(const PadImage& action, const Spec& spec, const Target& target) {
  if (Why w = pad_image_fails(action, spec, target)) return *w;
  return expansion(spec, PadOp{padded_buffer(action, spec)});
}

}  // namespace kriek
