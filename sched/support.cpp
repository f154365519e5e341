// The shared helpers of the Sched operators (see support.h).
#include "sched/support.h"

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

std::optional<Reduction> reduction_of(const Spec& spec) {
  const std::size_t n = spec.operands.size();
  Reduction r{std::vector<int>(n, -1), 0};
  return std::visit(
      overloaded{
          [&](const Matmul&) -> std::optional<Reduction> {
            const std::size_t rank = spec.input(0).rank();
            r.dim[0] = static_cast<int>(rank - 1);
            r.dim[1] = static_cast<int>(rank - 2);
            r.extent = spec.input(0).shape[rank - 1];
            return r;
          },
          [&](const Conv&) -> std::optional<Reduction> {
            const std::size_t rank = spec.input(0).rank();
            if (rank < 3) return std::nullopt;
            r.dim[0] = static_cast<int>(rank - 1);
            r.dim[1] = 2;
            r.extent = spec.input(0).shape[rank - 1];
            return r;
          },
          [&](const ReduceSum& s) -> std::optional<Reduction> {
            r.dim[0] = s.axis;
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

bool whole_registers(const TensorSpec& t, const Shape& tile) {
  if (t.level != Level::VRF) return true;
  auto box = register_box(t.shape, t.vector_size);
  if (!box) return false;
  for (std::size_t d = 0; d < tile.size(); ++d) {
    if (tile[d] % (*box)[d] != 0 || (t.shape[d] % tile[d]) % (*box)[d] != 0) return false;
  }
  return true;
}

int vrf_operand_split(const Spec& spec, const Loop& loop) {
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    if (t.level != Level::VRF) continue;
    auto box = register_box(t.shape, t.vector_size);
    if (!box) return static_cast<int>(i);
    for (std::size_t d = 0; d < t.rank(); ++d) {
      const DimMap& m = loop.operands[i][d];
      if (m.axis < 0) continue;
      const LoopAxis& a = loop.axes[static_cast<std::size_t>(m.axis)];
      const std::int64_t b = (*box)[d];
      if (a.tile % b != 0 || (a.tile + m.halo) % b != 0) return static_cast<int>(i);
      if (a.remainder() != 0 && (a.remainder() + m.halo) % b != 0) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace kriek::sched_detail
