// Floating-point operation counts of Specs, for GFLOP/s reports and for sizing decisions of the search.
#include "spec/overloaded.h"
#include "spec/spec.h"

namespace kriek {
namespace {

/// `lanes` > 1: a matmul's or a conv's outputs counted in whole registers along the innermost dimension.
double primitive_flops(const PrimitiveOp& op, std::span<const Shape> inputs, const Shape& out, std::int64_t lanes) {
  const bool fma = std::holds_alternative<Matmul>(op) || std::holds_alternative<Conv>(op);
  double n_out = static_cast<double>(volume(out));
  if (fma && lanes > 1 && !out.empty() && out.back() > 0) {
    n_out = n_out / static_cast<double>(out.back()) * static_cast<double>((out.back() + lanes - 1) / lanes * lanes);
  }
  return std::visit(overloaded{[&](const Matmul&) { return 2.0 * n_out * static_cast<double>(inputs[0].back()); },
                               [&](const Conv&) {
                                 const Shape& f = inputs[1];
                                 // Every output element sums FH x FW (x C) products.
                                 return 2.0 * n_out * static_cast<double>(volume(f) / f.back());
                               },
                               [&](const Move&) { return 0.0; },
                               [&](const Zero&) { return 0.0; },
                               [&](const Unary&) { return n_out; },
                               [&](const Binary&) { return n_out; },
                               [&](const ReduceSum&) { return static_cast<double>(volume(inputs[0])); }},
                    op);
}

}  // namespace

double flop_count(const Spec& spec, std::int64_t lanes) {
  PerOperand<Shape> inputs;
  for (const TensorSpec& t : spec.inputs()) inputs.push_back(t.shape);
  const auto* c = std::get_if<Compose>(&spec.op);
  if (!c) return primitive_flops(*primitive(spec.op), span_of(inputs), spec.output().shape, lanes);
  const auto mids = compose_intermediate_shapes(*c, span_of(inputs));
  double total = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < c->stages.size(); ++i) {
    PerOperand<Shape> args;
    if (i > 0) args.push_back(mids[i - 1]);
    while (args.size() < input_count(c->stages[i])) args.push_back(inputs[next++]);
    const Shape& out = i + 1 < c->stages.size() ? mids[i] : spec.output().shape;
    total += primitive_flops(c->stages[i], span_of(args), out, lanes);
  }
  return total;
}

}  // namespace kriek
