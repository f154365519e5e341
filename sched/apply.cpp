// apply(): dispatch of an Action to its operator, and action_text(), the words the REPL and error messages use
// for actions: `tile_out 32 32 [parallel]`, `split 64`, `slide 0 32 L1 row`, `move in0 L1 row [v16]`,
// `to_accum`, `bufferize 1 L1 row`, `select bcast_fma`.
#include <sstream>

#include "sched/bufferize.h"
#include "sched/move_to.h"
#include "sched/select.h"
#include "sched/slide.h"
#include "sched/split.h"
#include "sched/tile_out.h"
#include "sched/to_accum.h"
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
                        [&](const Split& a) { out << "split " << a.k; },
                        [&](const Slide& a) {
                          out << "slide " << int(a.dim) << ' ' << a.size << ' ' << level_name(a.level) << ' '
                              << layout_text(a.layout);
                        },
                        [&](const MoveTo& a) {
                          out << "move " << operand_word(a.operand, spec) << ' ' << level_name(a.level) << ' '
                              << layout_text(a.layout);
                          if (a.vector_size != 0) out << " v" << a.vector_size;
                        },
                        [&](const ToAccum&) { out << "to_accum"; },
                        [&](const Bufferize& a) {
                          out << "bufferize " << int(a.cut) << ' ' << level_name(a.level) << ' '
                              << layout_text(a.layout);
                        },
                        [&](const Select& a) { out << "select " << kernel_name(a.kernel); }},
             action);
  return out.str();
}

}  // namespace

ApplyResult apply(const Action& action, const Spec& spec, const Target& target) {
  try {
    return std::visit(overloaded{[&](const TileOut& a) { return apply_tile_out(a, spec, target); },
                                 [&](const Split& a) { return apply_split(a, spec, target); },
                                 [&](const Slide& a) { return apply_slide(a, spec, target); },
                                 [&](const MoveTo& a) { return apply_move_to(a, spec, target); },
                                 [&](const ToAccum& a) { return apply_to_accum(a, spec, target); },
                                 [&](const Bufferize& a) { return apply_bufferize(a, spec, target); },
                                 [&](const Select& a) { return apply_select(a, spec, target); }},
                      action);
  } catch (const UserError& e) {
    // Only a Spec that breaks its op's shape rules gets here (validate() rejects those).
    return NotApplicable{text(action, &spec) + ": the Spec is invalid: " + e.what()};
  }
}

std::string action_text(const Action& action) { return text(action, nullptr); }

std::string action_text(const Action& action, const Spec& spec) { return text(action, &spec); }

}  // namespace kriek
