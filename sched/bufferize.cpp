// bufferize: preconditions and the Pipeline node.
#include "sched/bufferize.h"

#include "sched/support.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// The intermediate's shape before stage `cut` (assumes (1) and (2)).
Shape intermediate(const Compose& c, const Spec& spec, std::size_t cut) {
  std::vector<Shape> in;
  for (const auto& t : spec.inputs()) in.push_back(t.shape);
  return compose_intermediate_shapes(c, in)[cut - 1];
}

}  // namespace

std::optional<NotApplicable> bufferize_fails(const Bufferize& a, const Spec& spec, const Target& target) {
  const auto* c = std::get_if<Compose>(&spec.op);
  if (c == nullptr) return not_applicable("bufferize", 1, "bufferize cuts a compose, not ", op_word(spec.op));
  if (a.cut < 1 || a.cut >= c->stages.size()) {
    return not_applicable("bufferize", 2, "cut ", int(a.cut), " is not in [1, ", c->stages.size(), ")");
  }
  if (!target.has_level(a.level)) {
    return not_applicable("bufferize", 3, "target ", target.name, " has no level ", level_name(a.level));
  }
  if (is_register_level(a.level)) {
    return not_applicable("bufferize", 4, "pipeline buffers live in memory, not ", level_name(a.level));
  }
  const std::size_t rank = intermediate(*c, spec, a.cut).size();
  if (!layout_valid(a.layout, rank)) {
    return not_applicable("bufferize", 5, "layout ", layout_text(a.layout), " is invalid for the rank-", rank,
                          " intermediate");
  }
  return std::nullopt;
}

ExpandResult expand_bufferize(const Bufferize& action, const Spec& spec, const Target& target) {
  if (auto why = bufferize_fails(action, spec, target)) return *why;
  Pipeline p;
  p.cut = action.cut;
  p.buffer.shape = intermediate(std::get<Compose>(spec.op), spec, action.cut);
  p.buffer.dtype = spec.output().dtype;
  p.buffer.level = action.level;
  p.buffer.layout = action.layout;
  return expansion(spec, std::move(p));
}

}  // namespace kriek
