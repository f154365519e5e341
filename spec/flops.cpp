// Floating-point operation counts of Specs, for GFLOP/s reports and for sizing decisions of the search.
#include "spec/overloaded.h"
#include "spec/spec.h"

namespace kriek {
namespace {

double primitive_flops(const PrimitiveOp& op, std::span<const Shape> inputs, const Shape& out) {
  const double n_out = static_cast<double>(volume(out));
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

double flop_count(const Spec& spec) {
  std::vector<Shape> inputs;
  for (const TensorSpec& t : spec.inputs()) inputs.push_back(t.shape);
  const auto* c = std::get_if<Compose>(&spec.op);
  if (!c) return primitive_flops(*primitive(spec.op), inputs, spec.output().shape);
  const auto mids = compose_intermediate_shapes(*c, inputs);
  double total = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < c->stages.size(); ++i) {
    std::vector<Shape> args;
    if (i > 0) args.push_back(mids[i - 1]);
    while (args.size() < input_count(c->stages[i])) args.push_back(inputs[next++]);
    total += primitive_flops(c->stages[i], args, i + 1 < c->stages.size() ? mids[i] : spec.output().shape);
  }
  return total;
}

}  // namespace kriek
