// Shape inference of every op kind: the output shape from the input shapes, or a UserError naming the extents
// that disagree.
#include <sstream>

#include "spec/conv_geometry.h"
#include "spec/error.h"
#include "spec/overloaded.h"
#include "spec/spec.h"

namespace kriek {
namespace {

Shape matmul_shape(const Shape& a, const Shape& b) {
  if (a.size() != b.size() || (a.size() != 2 && a.size() != 3)) {
    user_error("matmul operands must both be rank 2 (or rank 3 when batched), got ", shape_text(a), " and ",
               shape_text(b));
  }
  const std::size_t r = a.size();
  if (a[r - 1] != b[r - 2]) {
    user_error("matmul inner dimensions disagree: ", shape_text(a), " has K=", a[r - 1], " but ", shape_text(b),
               " has K=", b[r - 2]);
  }
  if (r == 3 && a[0] != b[0]) user_error("matmul batch sizes disagree: ", a[0], " and ", b[0]);
  Shape out = a;
  out[r - 1] = b[r - 1];
  return out;
}

Shape conv_shape(const Conv& conv, const Shape& img, const Shape& f) {
  const ConvGeometry g = conv_geometry(conv, img, f);
  Shape out;
  if (g.rank == 4) out.push_back(g.batch);
  out.push_back(g.oh);
  out.push_back(g.ow);
  out.push_back(g.f);
  return out;
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) {
    user_error("elementwise operands must have one rank, got ", shape_text(a), " and ", shape_text(b));
  }
  Shape out(a.size());
  for (std::size_t d = 0; d < a.size(); ++d) {
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1) {
      user_error("elementwise operands ", shape_text(a), " and ", shape_text(b), " do not broadcast in dimension ",
                 d);
    }
    out[d] = std::max(a[d], b[d]);
  }
  return out;
}

}  // namespace

Shape infer_output_shape(const PrimitiveOp& op, std::span<const Shape> in) {
  KRIEK_ASSERT(in.size() == input_count(op), "op ", op_word(op), " takes ", input_count(op), " inputs, got ",
               in.size());
  for (const Shape& s : in) {
    for (auto e : s) {
      if (e < 1) user_error("extents must be at least 1, got ", shape_text(s));
    }
  }
  return std::visit(overloaded{[&](const Matmul&) { return matmul_shape(in[0], in[1]); },
                               [&](const Conv& c) { return conv_shape(c, in[0], in[1]); },
                               [&](const Move&) { return in[0]; },
                               [&](const Zero&) -> Shape {
                                 KRIEK_ASSERT(false, "zero has no inputs to infer from");
                                 return {};
                               },
                               [&](const Unary&) { return in[0]; },
                               [&](const Binary&) { return broadcast_shape(in[0], in[1]); },
                               [&](const ReduceSum& r) {
                                 if (r.axis >= in[0].size()) {
                                   user_error("reducesum axis ", int(r.axis), " is out of range for ",
                                              shape_text(in[0]));
                                 }
                                 Shape out = in[0];
                                 out.erase(out.begin() + r.axis);
                                 return out;
                               }},
                    op);
}

namespace {

/// The output shape of every stage of `c`, in order: its intermediates, then its output.
PerOperand<Shape> stage_output_shapes(const Compose& c, std::span<const Shape> in) {
  if (c.stages.size() < 2) user_error("compose needs at least 2 stages, got ", c.stages.size());
  PerOperand<Shape> out;
  std::size_t next = 0;
  Shape carried;
  for (std::size_t i = 0; i < c.stages.size(); ++i) {
    const PrimitiveOp& stage = c.stages[i];
    if (std::holds_alternative<Zero>(stage)) user_error("compose stage ", i, " is zero, which takes no input");
    PerOperand<Shape> args;
    if (i > 0) args.push_back(carried);
    while (args.size() < input_count(stage)) {
      if (next >= in.size()) user_error("compose stages need more inputs than the ", in.size(), " given");
      args.push_back(in[next++]);
    }
    carried = infer_output_shape(stage, span_of(args));
    out.push_back(carried);
  }
  KRIEK_ASSERT(next == in.size(), "compose input count mismatch");
  return out;
}

}  // namespace

PerOperand<Shape> compose_intermediate_shapes(const Compose& c, std::span<const Shape> in) {
  PerOperand<Shape> out = stage_output_shapes(c, in);
  out.pop_back();
  return out;
}

Shape infer_output_shape(const Op& op, std::span<const Shape> in) {
  if (const auto* c = std::get_if<Compose>(&op)) {
    if (in.size() != input_count(op)) {
      user_error("compose of ", c->stages.size(), " stages takes ", input_count(op), " inputs, got ", in.size());
    }
    return stage_output_shapes(*c, in).back();
  }
  return infer_output_shape(*primitive(op), in);
}

}  // namespace kriek
