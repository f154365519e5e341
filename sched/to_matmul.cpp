// to_matmul: preconditions and the Reshape node.
#include "sched/to_matmul.h"

#include "sched/support.h"
#include "spec/conv_geometry.h"

namespace kriek {

using namespace sched_detail;

std::optional<NotApplicable> to_matmul_fails(const ToMatmul&, const Spec& spec, const Target&) {
  const auto* conv = std::get_if<Conv>(&spec.op);
  if (conv == nullptr) return not_applicable("to_matmul", 1, "to_matmul needs a conv, not ", op_word(spec.op));
  if (conv->padded()) {
    return not_applicable("to_matmul", 2, "the conv is padded (", conv->pad[0], "x", conv->pad[1], "); pad_image first");
  }
  const ConvGeometry g = conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
  if (g.fh != 1 || g.fw != 1) {
    return not_applicable("to_matmul", 3, "the filter window is ", g.fh, "x", g.fw, ", not 1x1 (split its taps)");
  }
  // One output row reads one image row (the matmul views no other); a stride can leave rows it never reads.
  if (g.batch * g.oh == 1 && g.h != 1) {
    return not_applicable("to_matmul", 4, "the output ", shape_text(spec.output().shape), " is one row but the image ",
                          shape_text(spec.input(0).shape), " has ", g.h, " (tile it to the row it reads)");
  }
  // Several rows (or images) are one matmul M only where they form one run: stride 1, dense image and output.
  if (g.batch * g.oh > 1) {
    if (g.stride != std::array<std::int64_t, 2>{1, 1}) {
      return not_applicable("to_matmul", 4, "the output ", shape_text(spec.output().shape),
                            " is several rows and the stride is ", g.stride[0], "x", g.stride[1], ", not 1");
    }
    for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
      // Row-major itself, not a layout that places this tile alike: the walk wraps through the whole buffer.
      const TensorSpec& t = spec.operands[i];
      if (!t.contiguous || t.layout.kind != Layout::Kind::row_major) {
        return not_applicable("to_matmul", 4, "the output ", shape_text(spec.output().shape), " is several rows and the ",
                              i == 0 ? "image" : "output", " is not dense and row-major");
      }
    }
  }
  for (std::size_t i : {std::size_t{0}, std::size_t{2}}) {
    const TensorSpec& t = spec.operands[i];
    if (!t.layout.same_placement(Layout::row_major(), t.shape)) {
      return not_applicable("to_matmul", 5, i == 0 ? "the image" : "the output", " is ", layout_text(t.layout),
                            ", not row-major");
    }
  }
  const TensorSpec& f = spec.input(1);
  const bool panels = f.layout.kind == Layout::Kind::blocked && f.layout.dim + 1u == f.rank();
  if (!panels && !f.layout.same_placement(Layout::row_major(), f.shape)) {
    return not_applicable("to_matmul", 5, "the filters are ", layout_text(f.layout),
                          ", neither row-major nor blocked on the output channels");
  }
  return std::nullopt;
}

ExpandResult expand_to_matmul(const ToMatmul& action, const Spec& spec, const Target& target) {
  if (Why w = to_matmul_fails(action, spec, target)) return *w;
  return expansion(spec, Reshape{});
}

}  // namespace kriek
