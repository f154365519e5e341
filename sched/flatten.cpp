// flatten: preconditions and the Reshape node of an elementwise op.
#include "sched/flatten.h"

#include "sched/support.h"

namespace kriek {

using namespace sched_detail;

std::optional<NotApplicable> flatten_fails(const Flatten&, const Spec& spec, const Target&) {
  if (!reshape_flattens(spec)) {
    return not_applicable("flatten", 1, "flatten needs an elementwise op (unary, binary, move, zero or a compose of "
                          "them), not ", op_word(spec.op));
  }
  const TensorSpec& out = spec.output();
  if (out.rank() < 2) return not_applicable("flatten", 2, "the output ", shape_text(out.shape), " is flat already");
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    if (t.shape != out.shape) {
      return not_applicable("flatten", 3, "operand ", i, " is ", shape_text(t.shape), ", not the output's ",
                            shape_text(out.shape), " (a broadcast)");
    }
  }
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    if (is_register_level(t.level)) return not_applicable("flatten", 4, "operand ", i, " is in ", level_name(t.level));
  }
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    if (t.layout.kind != Layout::Kind::row_major || t.dense_dims() < 2) {
      return not_applicable("flatten", 5, "operand ", i, " (", shape_text(t.shape), " ", layout_text(t.layout),
                            t.contiguous ? "" : ", strided", ") is not row-major with runs over 2 dimensions or more");
    }
  }
  return std::nullopt;
}

ExpandResult expand_flatten(const Flatten& action, const Spec& spec, const Target& target) {
  if (Why w = flatten_fails(action, spec, target)) return *w;
  return expansion(spec, Reshape{});
}

}  // namespace kriek
