// split_taps: preconditions and the TapSplit node.
#include "sched/split_taps.h"

#include "impl/taps.h"
#include "sched/support.h"
#include "spec/conv_geometry.h"

namespace kriek {

using namespace sched_detail;

std::optional<NotApplicable> split_taps_fails(const SplitTaps& a, const Spec& spec, const Target&) {
  const auto* conv = std::get_if<Conv>(&spec.op);
  if (conv == nullptr || !conv->accumulate) {
    return not_applicable("split_taps", 1, "split_taps needs a conv that accumulates (to_accum first); this ",
                          conv == nullptr ? "is a " + std::string(op_word(spec.op)) : std::string("conv does not"));
  }
  if (a.dim > 1) return not_applicable("split_taps", 2, "taps are split along fh or fw, not dimension ", int(a.dim));
  if (conv->pad[a.dim] == 0) {
    return not_applicable("split_taps", 2, "the conv has no padding along ", a.dim == 0 ? "rows" : "columns",
                          ": split its taps with split");
  }
  for (const TensorSpec& t : spec.operands) {
    if (is_register_level(t.level)) {
      return not_applicable("split_taps", 3, "an operand is in ", level_name(t.level), ", not in memory");
    }
  }
  const ConvGeometry g = conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
  const std::size_t cut[3] = {g.row_dim + a.dim, a.dim, g.row_dim + a.dim};
  for (std::size_t i = 0; i < 3; ++i) {
    const Layout& l = spec.operands[i].layout;
    if (l.kind == Layout::Kind::blocked && l.dim == cut[i]) {
      return not_applicable("split_taps", 4, "operand ", i, " is blocked along dimension ", cut[i],
                            ", which the taps cut");
    }
  }
  return std::nullopt;
}

ExpandResult expand_split_taps(const SplitTaps& action, const Spec& spec, const Target& target) {
  if (Why w = split_taps_fails(action, spec, target)) return *w;
  return expansion(spec, TapSplit{action.dim});
}

}  // namespace kriek
