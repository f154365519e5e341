// split: preconditions and the split loop over the reduction dimension.
#include "sched/split.h"

#include "sched/support.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// The split loop, or the failed precondition.
std::variant<Loop, NotApplicable> split_loop(const Split& action, const Spec& spec) {
  const auto* conv = std::get_if<Conv>(&spec.op);
  if (action.axis > static_cast<std::uint8_t>(ReductionAxis::filter_columns)) {
    return not_applicable("split", 1, "reduction axis ", int(action.axis), " does not exist (0 main, 1 filter rows, ",
                          "2 filter columns)");
  }
  const std::optional<Reduction> r = reduction_of(spec, static_cast<ReductionAxis>(action.axis));
  if (!r) {
    if (conv != nullptr) {
      return not_applicable("split", 1, "conv with a rank-", spec.input(0).rank(),
                            " image has no channel dimension to split");
    }
    return not_applicable("split", 1, op_word(spec.op), " has no reduction ",
                          action.axis == 0 ? "dimension" : "over filter taps");
  }
  if (!accumulates(spec.op)) {
    return not_applicable("split", 2, op_word(spec.op),
                          " does not accumulate into its output; apply to_accum first");
  }
  if (action.k < 1 || action.k >= r->extent) {
    return not_applicable("split", 3, "split size ", action.k, " is not in [1, ", r->extent,
                          "), the reduction extent");
  }
  if (conv != nullptr && conv->padded()) {
    return not_applicable("split", 5, "the conv is padded (", conv->pad[0], "x", conv->pad[1],
                          "); pad_image first, or split_taps (accumulating)");
  }
  Loop loop;
  loop.kind = LoopKind::split;
  loop.axes = {LoopAxis{r->extent, action.k}};
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    OperandMap m(spec.operands[i].rank(), DimMap{-1, 0, 1});
    if (r->dim[i] >= 0) m[static_cast<std::size_t>(r->dim[i])] = r->map[i];
    loop.operands.push_back(std::move(m));
  }
  if (const int bad = vrf_operand_split(spec, loop); bad >= 0) {
    const TensorSpec& t = spec.operands[static_cast<std::size_t>(bad)];
    return not_applicable("split", 4, "operand ", bad, " (", shape_text(t.shape), " in VRF, vector size ",
                          t.vector_size, ") would be cut into partial vector registers");
  }
  return loop;
}

}  // namespace

std::optional<NotApplicable> split_fails(const Split& action, const Spec& spec, const Target&) {
  auto loop = split_loop(action, spec);
  if (auto* na = std::get_if<NotApplicable>(&loop)) return *na;
  return std::nullopt;
}

ExpandResult expand_split(const Split& action, const Spec& spec, const Target&) {
  auto loop = split_loop(action, spec);
  if (auto* na = std::get_if<NotApplicable>(&loop)) return *na;
  return expansion(spec, std::get<Loop>(std::move(loop)));
}

std::optional<std::int64_t> reduction_extent(const Spec& spec, std::uint8_t axis) {
  const auto r = reduction_of(spec, static_cast<ReductionAxis>(axis));
  if (!r) return std::nullopt;
  return r->extent;
}

}  // namespace kriek
