// parallel_worthwhile and parallel_reachable: the work and buffer sizes from which a thread team pays.
#include "impl/parallel_rule.h"

#include <algorithm>

#include "impl/node.h"
#include "spec/conv_geometry.h"

namespace kriek {
namespace {

bool streams(const PrimitiveOp& p) {
  return std::holds_alternative<Move>(p) || std::holds_alternative<Zero>(p) || std::holds_alternative<Unary>(p) ||
         std::holds_alternative<Binary>(p);
}

/// A Move, a Zero, an elementwise op or a pipeline of them: work of a few instructions per element, bound by the
/// level it streams from.
bool streams_data(const Spec& spec) {
  if (const auto* c = std::get_if<Compose>(&spec.op)) return std::ranges::all_of(c->stages, streams);
  const std::optional<PrimitiveOp> p = primitive(spec.op);
  return p && streams(*p);
}

/// Elements of the largest buffer a Spec or any Spec below it holds: its operands (tiles, moves and views make
/// none larger), a padded conv's zero-bordered image (pad_image), a Compose's intermediates (bufferize).
std::int64_t largest_buffer(const Spec& spec) {
  std::int64_t most = 0;
  for (const TensorSpec& t : spec.operands) most = std::max(most, t.elements());
  if (const Conv* conv = leading_conv(spec.op); conv && conv->padded()) {
    most = std::max(most, volume(padded_image_shape(spec)));
  }
  if (const auto* c = std::get_if<Compose>(&spec.op)) {
    PerOperand<Shape> inputs;
    for (const TensorSpec& t : spec.inputs()) inputs.push_back(t.shape);
    for (const Shape& mid : compose_intermediate_shapes(*c, span_of(inputs))) most = std::max(most, volume(mid));
  }
  return most;
}

}  // namespace

bool parallel_worthwhile(const Spec& spec) {
  if (streams_data(spec)) return spec.output().elements() >= kParallelMinElements;
  return flop_count(spec, kParallelLanes) >= kParallelMinFlops;
}

bool parallel_reachable(const Spec& spec) {
  return flop_count(spec, kParallelLanes) >= kParallelMinFlops || largest_buffer(spec) >= kParallelMinElements;
}

}  // namespace kriek
