// apply() and expand(): dispatch of an Action to its operator (apply builds the node expand describes), and action_text(), the words the REPL and error messages use
// for actions: `tile_out 32 32 [parallel]`, `split 64`, `split 1 fh`, `to_matmul`, `pad_image GL row`, `slide 0 32 L1 row`, `move in0 L1 row [v16]`,
// `to_accum`, `bufferize 1 L1 row`, `flatten`, `select bcast_fma`.
#include <sstream>

#include "impl/taps.h"
#include "sched/bufferize.h"
#include "sched/flatten.h"
#include "sched/move_to.h"
#include "sched/pad_image.h"
#include "sched/select.h"
#include "sched/slide.h"
#include "sched/split.h"
#include "sched/split_taps.h"
#include "sched/support.h"
#include "sched/tile_out.h"
#include "sched/to_accum.h"
#include "sched/to_matmul.h"
#include "spec/error.h"
#include "spec/overloaded.h"

namespace kriek {
namespace {

/// The operand word of a move: `in<i>` or `out` when the Spec is known, else `op<i>`.
std::string operand_word(std::size_t i, const Spec* spec) {
  if (spec == nullptr) return "op" + std::to_string(i);
  if (i + 1 == spec->operands.size()) return "out";
  return "in" + std::to_string(i);
}

std::string text(const Action& action, const Spec* spec) {
  std::ostringstream out;
  std::visit(overloaded{[&](const TileOut& a) {
                          out << "tile_out";
                          for (auto e : a.tile) out << ' ' << e;
                          if (a.parallel) out << " parallel";
                        },
                        [&](const Split& a) {
                          out << "split " << a.k;
                          if (a.axis != 0) out << ' ' << split_axis_word(a.axis);
                        },
                        [&](const Slide& a) {
                          out << "slide " << int(a.dim) << ' ' << a.size << ' ' << level_name(a.level) << ' '
                              << layout_text(a.layout);
                        },
                        [&](const MoveTo& a) {
                          // A copy keeps the operand's own layout, which the REPL's `copy` implies.
                          out << "move " << operand_word(a.operand, spec) << ' ' << level_name(a.level) << ' '
                              << (a.copy ? "copy" : layout_text(a.layout));
                          if (a.vector_size != 0) out << " v" << a.vector_size;
                        },
                        [&](const ToAccum&) { out << "to_accum"; },
                        [&](const Bufferize& a) {
                          out << "bufferize " << int(a.cut) << ' ' << level_name(a.level) << ' '
                              << layout_text(a.layout);
                        },
                        [&](const ToMatmul&) { out << "to_matmul"; },
                        [&](const PadImage& a) {
                          out << "pad_image " << level_name(a.level) << ' ' << layout_text(a.layout);
                        },
                        [&](const SplitTaps& a) { out << "split_taps " << filter_dim_word(a.dim); },
                        [&](const Select& a) { out << "select " << kernel_name(a.kernel); },
                        [&](const Flatten&) { out << "flatten"; }},
             action);
  return out.str();
}

/// Why the Spec breaks its op's shape rules (operand count, output shape), or an empty string. validate()
/// rejects such Specs; apply() checks the cheap part so that no operator indexes a missing dimension.
std::string shape_error(const Spec& spec) {
  if (spec.operands.empty() || spec.operands.size() != input_count(spec.op) + 1) {
    return "the Spec has " + std::to_string(spec.operands.size()) + " operands, " + std::string(op_word(spec.op)) +
           " takes " + std::to_string(input_count(spec.op) + 1);
  }
  if (std::holds_alternative<Zero>(spec.op)) return "";
  PerOperand<Shape> in;
  for (const auto& t : spec.inputs()) in.push_back(t.shape);
  if (infer_output_shape(spec.op, span_of(in)) != spec.output().shape) return "the output's shape is not the op's";
  return "";
}

}  // namespace

ExpandResult expand(const Action& action, const Spec& spec, const Target& target) {
  try {
    if (std::string why = shape_error(spec); !why.empty()) {
      return NotApplicable{text(action, &spec) + ": the Spec is invalid: " + why};
    }
  } catch (const UserError& e) {
    return NotApplicable{text(action, &spec) + ": the Spec is invalid: " + e.what()};
  }
  return expand_valid(action, spec, target);
}

ExpandResult expand_valid(const Action& action, const Spec& spec, const Target& target) {
  try {
    return std::visit(overloaded{[&](const TileOut& a) { return expand_tile_out(a, spec, target); },
                                 [&](const Split& a) { return expand_split(a, spec, target); },
                                 [&](const Slide& a) { return expand_slide(a, spec, target); },
                                 [&](const MoveTo& a) { return expand_move_to(a, spec, target); },
                                 [&](const ToAccum& a) { return expand_to_accum(a, spec, target); },
                                 [&](const Bufferize& a) { return expand_bufferize(a, spec, target); },
                                 [&](const ToMatmul& a) { return expand_to_matmul(a, spec, target); },
                                 [&](const PadImage& a) { return expand_pad_image(a, spec, target); },
                                 [&](const SplitTaps& a) { return expand_split_taps(a, spec, target); },
                                 [&](const Select& a) { return expand_select(a, spec, target); },
                                 [&](const Flatten& a) { return expand_flatten(a, spec, target); }},
                      action);
  } catch (const UserError& e) {
    // Only a Spec that breaks its op's shape rules gets here (validate() rejects those).
    return NotApplicable{text(action, &spec) + ": the Spec is invalid: " + e.what()};
  }
}

ApplyResult apply(const Action& action, const Spec& spec, const Target& target) {
  ExpandResult r = expand(action, spec, target);
  if (auto* na = std::get_if<NotApplicable>(&r)) return std::move(*na);
  Expansion& e = std::get<Expansion>(r);
  // The checked factories compare every Hole's Spec with the one the node kind implies.
  std::vector<ImplPtr> holes;
  holes.reserve(e.children.size());
  for (Spec& c : e.children) holes.push_back(make_hole(std::move(c)));
  return std::visit(overloaded{[&](Loop& k) { return make_loop(spec, std::move(k), std::move(holes)); },
                               [&](MoveOp& k) { return make_move(spec, std::move(k), std::move(holes)); },
                               [&](Block& k) { return make_block(spec, std::move(k), std::move(holes)); },
                               [&](Pipeline& k) { return make_pipeline(spec, std::move(k), std::move(holes)); },
                               [&](Reshape&) { return make_reshape(spec, std::move(holes)); },
                               [&](PadOp& k) { return make_pad(spec, std::move(k), std::move(holes)); },
                               [&](TapSplit& k) { return make_taps(spec, k, std::move(holes)); },
                               [&](KernelCall& k) { return make_kernel(spec, k.kernel, target); },
                               [&](Hole&) { return make_hole(spec); }},
                    e.kind);
}

std::string action_text(const Action& action) { return text(action, nullptr); }

std::string action_text(const Action& action, const Spec& spec) { return text(action, &spec); }

std::string split_axis_word(std::uint8_t axis) {
  switch (static_cast<sched_detail::ReductionAxis>(axis)) {
    case sched_detail::ReductionAxis::main:
      return "";
    case sched_detail::ReductionAxis::filter_rows:
      return filter_dim_word(0);
    case sched_detail::ReductionAxis::filter_columns:
      return filter_dim_word(1);
  }
  return "axis" + std::to_string(int(axis));
}

std::optional<std::uint8_t> split_axis_of(std::string_view word) {
  using sched_detail::ReductionAxis;
  for (const ReductionAxis a : {ReductionAxis::filter_rows, ReductionAxis::filter_columns}) {
    if (word == split_axis_word(static_cast<std::uint8_t>(a))) return static_cast<std::uint8_t>(a);
  }
  return std::nullopt;
}

}  // namespace kriek
