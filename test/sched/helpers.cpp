// The sched test helpers (see helpers.h).
#include "support/golden.h"
#include "helpers.h"
#include "support/interpret_check.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "impl/interpreter.h"
#include "sched/enumerate.h"
#include "spec/reference.h"

namespace kriek::sched_test {

std::vector<Spec> check_all_apply(const Spec& spec, const Target& target) {
  std::vector<Spec> children;
  for (const Action& a : enumerate_actions(spec, target)) {
    ApplyResult r = apply(a, spec, target);
    if (const auto* na = std::get_if<NotApplicable>(&r)) {
      FAIL_CHECK("enumerated `" << action_text(a, spec) << "` on " << text(spec) << " fails: " << na->reason);
      continue;
    }
    for (const auto* h : holes(std::get<ImplPtr>(r))) children.push_back(h->spec);
  }
  return children;
}

const Target& scalar_target() {
  static const Target t = named_target("scalar");
  return t;
}

namespace {
Spec inferred(Op op, std::vector<Shape> inputs) {
  Spec s{op, {}, false};
  for (auto& in : inputs) s.operands.push_back(ts(in));
  s.operands.push_back(ts(infer_output_shape(op, inputs)));
  return s;
}
}  // namespace

Spec matmul(Shape a, Shape b, bool accumulate) { return inferred(Matmul{accumulate}, {a, b}); }
Spec conv(Shape img, Shape filters, bool accumulate) { return inferred(Conv{accumulate}, {img, filters}); }
Spec move_spec(TensorSpec in, TensorSpec out) { return Spec{Move{}, {std::move(in), std::move(out)}, false}; }
Spec zero(Shape out) { return Spec{Zero{}, {ts(std::move(out))}, false}; }
Spec relu(Shape shape) { return inferred(Unary{UnaryOp::relu}, {shape}); }
Spec binary(BinaryOp op, Shape a, Shape b) { return inferred(Binary{op}, {a, b}); }
Spec reducesum(Shape in, std::uint8_t axis, bool accumulate) {
  return inferred(ReduceSum{axis, accumulate}, {in});
}
Spec compose(std::vector<PrimitiveOp> stages, std::vector<Shape> inputs) {
  return inferred(Compose{std::move(stages)}, std::move(inputs));
}

std::string text(const Spec& spec) {
  std::ostringstream out;
  out << spec;
  return out.str();
}

ImplPtr applied(const Action& action, const Spec& spec, const Target& target) {
  ApplyResult r = apply(action, spec, target);
  if (const auto* na = std::get_if<NotApplicable>(&r)) {
    FAIL("`" << action_text(action, spec) << "` on " << text(spec) << " does not apply: " << na->reason);
  }
  return std::get<ImplPtr>(r);
}

std::string reason(const Action& action, const Spec& spec, const Target& target) {
  ApplyResult r = apply(action, spec, target);
  if (std::holds_alternative<ImplPtr>(r)) FAIL("`" << action_text(action, spec) << "` on " << text(spec) << " applies");
  return std::get<NotApplicable>(r).reason;
}

bool interprets_reference(const ImplPtr& impl, std::mt19937_64& rng) {
  const std::uint64_t seed = rng();
  const Verification v = kriek::testing::interpret_check(impl, seed);
  INFO("seed " << seed << ": max error " << v.max_error << " at output element " << v.worst << ", tolerance "
                << v.tolerance);
  return v.ok();
}

void check_golden(const std::string& name, const std::string& text) {
  kriek::testing::check_golden("sched", name, text);
}

}  // namespace kriek::sched_test
