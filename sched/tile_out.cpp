// tile_out: preconditions and the tile loop.
#include "sched/tile_out.h"

#include "sched/support.h"
#include "sched/tile_maps.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// The loop, assuming preconditions (1)-(4) hold.
Loop tile_loop(const TileOut& action, const Spec& spec) {
  Loop loop;
  loop.kind = LoopKind::tile;
  loop.parallel = action.parallel;
  const OperandMap out = output_axes(spec.output().shape, action.tile, loop.axes);
  loop.operands = output_tile_maps(spec, out);
  return loop;
}

Why shape_fails(const TileOut& action, const Spec& spec) {
  const Shape& out = spec.output().shape;
  if (action.tile.size() != out.size()) {
    return not_applicable("tile_out", 1, "tile ", shape_text(action.tile), " has rank ", action.tile.size(),
                          " but the output ", shape_text(out), " has rank ", out.size());
  }
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (action.tile[d] < 1) {
      return not_applicable("tile_out", 2, "tile extent ", action.tile[d], " in dimension ", d, " is below 1");
    }
    if (action.tile[d] > out[d]) {
      return not_applicable("tile_out", 2, "tile extent ", action.tile[d], " in dimension ", d,
                            " exceeds the output's ", out[d]);
    }
  }
  if (action.tile == out) {
    return not_applicable("tile_out", 3, "tile ", shape_text(action.tile), " is the whole output");
  }
  if (action.parallel && spec.serial_only) {
    return not_applicable("tile_out", 4, "a parallel loop in a serial_only Spec");
  }
  return std::nullopt;
}

bool has_vrf_operand(const Spec& spec) {
  for (const auto& t : spec.operands) {
    if (t.level == Level::VRF) return true;
  }
  return false;
}

Why vrf_fails(const Spec& spec, const Loop& loop) {
  const int bad = vrf_operand_split(spec, loop);
  if (bad < 0) return std::nullopt;
  const TensorSpec& t = spec.operands[static_cast<std::size_t>(bad)];
  return not_applicable("tile_out", 5, "operand ", bad, " (", shape_text(t.shape), " in VRF, vector size ",
                        t.vector_size, ") would be cut into partial vector registers");
}

}  // namespace

std::optional<NotApplicable> tile_out_fails(const TileOut& action, const Spec& spec, const Target&) {
  if (Why w = shape_fails(action, spec)) return w;
  if (has_vrf_operand(spec)) return vrf_fails(spec, tile_loop(action, spec));
  return std::nullopt;
}

ApplyResult apply_tile_out(const TileOut& action, const Spec& spec, const Target& target) {
  if (Why w = shape_fails(action, spec)) return *w;
  Loop loop = tile_loop(action, spec);
  if (Why w = vrf_fails(spec, loop)) return *w;
  return make_with_holes(spec, std::move(loop), target);
}

}  // namespace kriek
