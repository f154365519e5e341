// to_accum: preconditions and the zero-then-accumulate Block.
#include "sched/to_accum.h"

#include "sched/support.h"
#include "spec/overloaded.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// The primitive op with accumulate set, or nullopt when it has no accumulating form.
std::optional<PrimitiveOp> with_accumulate(const PrimitiveOp& op) {
  return std::visit(overloaded{[](Matmul m) -> std::optional<PrimitiveOp> { m.accumulate = true; return m; },
                               [](Conv c) -> std::optional<PrimitiveOp> { c.accumulate = true; return c; },
                               [](ReduceSum r) -> std::optional<PrimitiveOp> { r.accumulate = true; return r; },
                               [](const Move&) -> std::optional<PrimitiveOp> { return std::nullopt; },
                               [](const Zero&) -> std::optional<PrimitiveOp> { return std::nullopt; },
                               [](const Unary&) -> std::optional<PrimitiveOp> { return std::nullopt; },
                               [](const Binary&) -> std::optional<PrimitiveOp> { return std::nullopt; }},
                    op);
}

std::optional<PrimitiveOp> last_stage(const Op& op) {
  if (const auto* c = std::get_if<Compose>(&op)) {
    if (c->stages.empty()) return std::nullopt;
    return c->stages.back();
  }
  return primitive(op);
}

}  // namespace

Op accumulating(const Op& op) {
  if (const auto* c = std::get_if<Compose>(&op)) {
    Compose out = *c;
    out.stages.back() = *with_accumulate(out.stages.back());
    return out;
  }
  return to_op(*with_accumulate(*primitive(op)));
}

std::optional<NotApplicable> to_accum_fails(const ToAccum&, const Spec& spec, const Target&) {
  const auto last = last_stage(spec.op);
  if (!last || !with_accumulate(*last)) {
    return not_applicable("to_accum", 1, op_word(spec.op),
                          std::holds_alternative<Compose>(spec.op) ? " whose last stage" : "",
                          " has no accumulating form (matmul, conv, reducesum)");
  }
  if (accumulates(spec.op)) return not_applicable("to_accum", 2, op_word(spec.op), " accumulates already");
  return std::nullopt;
}

ExpandResult expand_to_accum(const ToAccum& action, const Spec& spec, const Target& target) {
  if (auto why = to_accum_fails(action, spec, target)) return *why;
  const auto out = static_cast<std::uint8_t>(spec.operands.size() - 1);
  Spec zero{Zero{}, {spec.output()}, spec.serial_only};
  Spec acc = spec;
  acc.op = accumulating(spec.op);
  Block block;
  block.operands.push_back({out});
  block.operands.emplace_back();
  for (std::uint8_t i = 0; i <= out; ++i) block.operands.back().push_back(i);
  return Expansion{std::move(block), {std::move(zero), std::move(acc)}};
}

}  // namespace kriek
