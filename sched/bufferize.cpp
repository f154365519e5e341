// bufferize: preconditions and the Pipeline node.
#include "sched/bufferize.h"

#include "impl/tiling.h"
#include "sched/support.h"

namespace kriek {

using namespace sched_detail;

Shape bufferize_intermediate(const Compose& c, const Spec& spec, std::size_t cut) {
  PerOperand<Shape> in;
  for (const auto& t : spec.inputs()) in.push_back(t.shape);
  return compose_intermediate_shapes(c, span_of(in))[cut - 1];
}

std::optional<NotApplicable> bufferize_fails(const Bufferize& a, const Spec& spec, const Target& target) {
  const auto* c = std::get_if<Compose>(&spec.op);
  if (c == nullptr) return not_applicable("bufferize", 1, "bufferize cuts a compose, not ", op_word(spec.op));
  if (a.cut < 1 || a.cut >= c->stages.size()) {
    return not_applicable("bufferize", 2, "cut ", int(a.cut), " is not in [1, ", c->stages.size(), ")");
  }
  if (!target.has_level(a.level)) {
    return not_applicable("bufferize", 3, "target ", target.name, " has no level ", level_name(a.level));
  }
  const Shape mid = bufferize_intermediate(*c, spec, a.cut);
  const std::size_t rank = mid.size();
  if (!layout_valid(a.layout, rank)) {
    return not_applicable("bufferize", 5, "layout ", layout_text(a.layout), " is invalid for the rank-", rank,
                          " intermediate");
  }
  // A register buffer hands a register tile from one stage to the next (a fused epilogue): whole row-major
  // vector registers in VRF, or register panels where rows end in a partial register, one element in RF, within
  // the level's capacity.
  if (is_register_level(a.level)) {
    const std::uint32_t width = target.vector_elements(spec.output().dtype);
    const std::int64_t elements = a.layout.buffer_elements(mid);
    const bool panels = a.level == Level::VRF && rank >= 1 && a.layout == register_panels(rank, width);
    if (panels) {
      if (!rows_end_partial(mid, width)) {
        return not_applicable("bufferize", 4, "rows of ", mid.back(), " are whole registers of ", width,
                              "; register panels are for a partial last register");
      }
    } else if (!a.layout.same_placement(Layout::row_major(), mid)) {
      return not_applicable("bufferize", 4, "register buffers are row-major or register panels, not ",
                            layout_text(a.layout));
    }
    if (a.level == Level::RF && elements != 1) {
      return not_applicable("bufferize", 4, "RF buffers hold one element, not ", shape_text(mid));
    }
    if (a.level == Level::VRF && !panels && !register_box(mid, width)) {
      return not_applicable("bufferize", 4, "the intermediate ", shape_text(mid), " does not split into whole ",
                            "registers of ", width, " elements");
    }
    const std::int64_t capacity = target.level(a.level).capacity;
    const std::int64_t bytes = elements * static_cast<std::int64_t>(dtype_bytes(spec.output().dtype));
    if (capacity > 0 && bytes > capacity) {
      return not_applicable("bufferize", 4, "the intermediate ", shape_text(mid), " takes ", bytes, " bytes but ",
                            level_name(a.level), " holds ", capacity);
    }
  }
  return std::nullopt;
}

ExpandResult expand_bufferize(const Bufferize& action, const Spec& spec, const Target& target) {
  if (auto why = bufferize_fails(action, spec, target)) return *why;
  Pipeline p;
  p.cut = action.cut;
  p.buffer.shape = bufferize_intermediate(std::get<Compose>(spec.op), spec, action.cut);
  p.buffer.dtype = spec.output().dtype;
  p.buffer.level = action.level;
  p.buffer.layout = action.layout;
  if (action.level == Level::VRF) p.buffer.vector_size = target.vector_elements(p.buffer.dtype);
  return expansion(spec, std::move(p));
}

}  // namespace kriek
