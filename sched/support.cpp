// The shared helpers of the Sched operators (see support.h).
#include "sched/support.h"

#include "impl/taps.h"
#include "spec/conv_geometry.h"
#include "spec/error.h"
#include "spec/overloaded.h"

namespace kriek::sched_detail {

Expansion expansion(const Spec& spec, NodeKind kind) {
  Expansion e;
  std::visit(overloaded{[&](Loop& loop) {
                          loop.body_masks = loop_body_masks(loop.axes);
                          e.children.reserve(loop.body_masks.size());
                          for (auto mask : loop.body_masks) e.children.push_back(loop_body_spec(spec, loop, mask));
                        },
                        [&](MoveOp& move) { e.children = move_child_specs(spec, move); },
                        [&](Pipeline& p) { e.children = pipeline_child_specs(spec, p); },
                        [&](Reshape&) { e.children = {reshape_child_spec(spec)}; },
                        [&](PadOp& p) { e.children = pad_child_specs(spec, p); },
                        [&](TapSplit& t) { e.children = tap_child_specs(spec, t); },
                        [&](KernelCall&) {},
                        [&](Block&) { KRIEK_ASSERT(false, "expansion() of a Block: its children are not implied"); },
                        [&](Hole&) { KRIEK_ASSERT(false, "expansion() of a Hole: it has no children"); }},
             kind);
  e.kind = std::move(kind);
  return e;
}

bool layout_valid(const Layout& layout, std::size_t rank) {
  if (layout.kind != Layout::Kind::blocked) return true;
  return layout.dim < rank && layout.block >= 1;
}

std::optional<Reduction> reduction_of(const Spec& spec, ReductionAxis axis) {
  const std::size_t n = spec.operands.size();
  Reduction r{PerOperand<DimMap>(n), PerOperand<int>(n, -1), 0};
  auto follow = [&](std::size_t operand, std::size_t dim, std::int64_t halo) {
    r.dim[operand] = static_cast<int>(dim);
    r.map[operand] = DimMap{0, halo, 1};
  };
  if (axis != ReductionAxis::main) {
    const auto* conv = std::get_if<Conv>(&spec.op);
    if (conv == nullptr) return std::nullopt;
    const ConvGeometry g = conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
    const std::size_t s = axis == ReductionAxis::filter_rows ? 0 : 1;
    follow(0, g.row_dim + s, (g.out(s) - 1) * g.stride[s]);
    follow(1, s, 0);
    r.extent = g.filter(s);
    return r;
  }
  return std::visit(
      overloaded{
          [&](const Matmul&) -> std::optional<Reduction> {
            const std::size_t rank = spec.input(0).rank();
            follow(0, rank - 1, 0);
            follow(1, rank - 2, 0);
            r.extent = spec.input(0).shape[rank - 1];
            return r;
          },
          [&](const Conv&) -> std::optional<Reduction> {
            const std::size_t rank = spec.input(0).rank();
            if (rank < 3) return std::nullopt;
            follow(0, rank - 1, 0);
            follow(1, 2, 0);
            r.extent = spec.input(0).shape[rank - 1];
            return r;
          },
          [&](const ReduceSum& s) -> std::optional<Reduction> {
            follow(0, s.axis, 0);
            r.extent = spec.input(0).shape[s.axis];
            return r;
          },
          [](const Move&) -> std::optional<Reduction> { return std::nullopt; },
          [](const Zero&) -> std::optional<Reduction> { return std::nullopt; },
          [](const Unary&) -> std::optional<Reduction> { return std::nullopt; },
          [](const Binary&) -> std::optional<Reduction> { return std::nullopt; },
          [](const Compose&) -> std::optional<Reduction> { return std::nullopt; }},
      spec.op);
}

const Conv* padded_conv(const Op& op) {
  if (const auto* c = std::get_if<Conv>(&op)) return c->padded() ? c : nullptr;
  if (const auto* c = std::get_if<Compose>(&op)) {
    for (const PrimitiveOp& stage : c->stages) {
      if (const auto* conv = std::get_if<Conv>(&stage); conv && conv->padded()) return conv;
    }
  }
  return nullptr;
}

int vrf_operand_split(const Spec& spec, const Loop& loop) {
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    if (t.level != Level::VRF) continue;
    if (in_register_panels(t)) {
      // Rows of registers: the innermost dimension cut at whole registers, or not at all (its remainder ends the
      // row, in the row's partial register).
      const DimMap& m = loop.operands[i][t.rank() - 1];
      if (m.axis < 0) continue;
      const std::int64_t e = m.extent(loop.axes[static_cast<std::size_t>(m.axis)].tile);
      if (e % t.vector_size != 0 && e < t.shape.back()) return static_cast<int>(i);
      continue;
    }
    auto box = register_box(t.shape, t.vector_size);
    if (!box) return static_cast<int>(i);
    for (std::size_t d = 0; d < t.rank(); ++d) {
      const DimMap& m = loop.operands[i][d];
      if (m.axis < 0) continue;
      const LoopAxis& a = loop.axes[static_cast<std::size_t>(m.axis)];
      const std::int64_t b = (*box)[d];
      if (a.tile % b != 0 || m.extent(a.tile) % b != 0) return static_cast<int>(i);
      if (a.remainder() != 0 && m.extent(a.remainder()) % b != 0) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace kriek::sched_detail
