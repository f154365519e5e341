// move_to: preconditions, alias detection and the MoveOp.
#include "sched/move_to.h"

#include "sched/support.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// Whether a move into `a.level` in `a.layout` keeps every element where it is (a cache, the same placement).
bool keeps_placement(const MoveTo& a, const TensorSpec& t, const Target& target) {
  return !target.level(a.level).addressed && a.level != t.level && a.vector_size == 0 &&
         t.layout.same_placement(a.layout, t.shape);
}

bool is_alias(const MoveTo& a, const TensorSpec& t, const Target& target) {
  return !a.copy && keeps_placement(a, t, target);
}

/// True when each row of memory tensor `t` is one run in row-major order (register panels load and store rows):
/// row-major at any row stride, or one contiguous row in a layout that places it as row-major does.
bool row_runs(const TensorSpec& t) {
  return t.layout.kind == Layout::Kind::row_major ||
         (t.contiguous && t.elements() == t.shape.back() && t.layout.same_placement(Layout::row_major(), t.shape));
}

/// Why no vector kernel could read or write operand `i` of `spec` in VRF in `layout`, or nullopt.
Why vector_kernel_fails(const Spec& spec, std::size_t i, std::uint32_t width, const Layout& layout, bool panels) {
  const auto fail = [&](const auto&... why) { return not_applicable("move_to", 10, why...); };
  if (std::holds_alternative<Move>(spec.op)) {
    const TensorSpec& other = spec.operands[1 - i];
    if (is_register_level(other.level)) {
      return fail("no kernel copies between registers (the other operand is in ", level_name(other.level), ")");
    }
    if (panels ? !row_runs(other) : !register_rows_dense(other, width)) {
      return fail("vec_load and vec_store need each register's elements contiguous and row-major in the other "
                  "operand, not ", other.contiguous ? "" : "strided ", shape_text(other.shape), " ",
                  layout_text(other.layout));
    }
    return std::nullopt;
  }
  if (std::holds_alternative<Zero>(spec.op)) return std::nullopt;
  if (std::holds_alternative<Unary>(spec.op) || std::holds_alternative<Binary>(spec.op)) {
    // vec_binary reads an input of another shape only as one broadcast element, in memory.
    if (spec.operands[i].shape != spec.output().shape) {
      return fail("vector kernels broadcast an input from memory, not ", shape_text(spec.operands[i].shape), " in VRF");
    }
    // Lane by lane: the operands in registers hold their elements in the same places.
    for (std::size_t j = 0; j < spec.operands.size(); ++j) {
      const TensorSpec& other = spec.operands[j];
      if (j != i && other.level == Level::VRF && !other.layout.same_placement(layout, other.shape)) {
        return fail("operand ", j, " is in VRF ", layout_text(other.layout), "; an elementwise vector kernel reads ",
                    "and writes its registers lane by lane, so not ", layout_text(layout));
      }
    }
    return std::nullopt;
  }
  if (std::holds_alternative<Matmul>(spec.op)) {
    const TensorSpec& lhs = spec.input(0);
    if (lhs.rank() != 2 && !(lhs.rank() == 3 && lhs.shape[0] == 1)) {
      return fail("vector kernels take rank-2 matmuls or a batch of 1, not ", shape_text(lhs.shape));
    }
    if (i == 0) return fail("vector kernels read the lhs from memory (it is broadcast)");
    if (is_register_level(lhs.level)) return fail("vector kernels read the lhs from memory, not ", level_name(lhs.level));
    if (!panels && spec.operands[i].shape.back() % width != 0) {
      return fail("n = ", spec.operands[i].shape.back(), " is not a multiple of the vector size ", width);
    }
    return std::nullopt;
  }
  if (std::holds_alternative<ReduceSum>(spec.op)) {
    if (i == 0) return fail("vector kernels read a reduction's input from memory");
    return std::nullopt;
  }
  if (std::holds_alternative<Conv>(spec.op)) {
    // A conv's output tile in registers accumulates over its taps and channels; to_matmul then hands it to the
    // matmul kernels (bcast_fma), which read the image from memory.
    if (i + 1 != spec.operands.size()) return fail("vector kernels read a conv's image and filters from memory");
    if (panels) return fail("a conv's output registers are whole, not register panels");
    if (is_register_level(spec.input(0).level) || is_register_level(spec.input(1).level)) {
      return fail("vector kernels read a conv's image and filters from memory");
    }
    if (spec.output().shape.back() % width != 0) {
      return fail("the output channels ", spec.output().shape.back(), " are not a multiple of the vector size ", width);
    }
    return std::nullopt;
  }
  return fail("no vector kernel implements ", op_word(spec.op));
}

Why fails(const MoveTo& a, const Spec& spec, const Target& target) {
  if (a.operand >= spec.operands.size()) {
    return not_applicable("move_to", 1, "operand ", int(a.operand), " does not exist; the Spec has ",
                          spec.operands.size());
  }
  const TensorSpec& t = spec.operands[a.operand];
  if (!target.has_level(a.level)) {
    return not_applicable("move_to", 2, "target ", target.name, " has no level ", level_name(a.level));
  }
  if (!target.has_level(t.level)) {
    return not_applicable("move_to", 2, "target ", target.name, " has no level ", level_name(t.level),
                          " (where operand ", int(a.operand), " is)");
  }
  if (target.faster(t.level, a.level)) {
    return not_applicable("move_to", 3, level_name(a.level), " is slower than operand ", int(a.operand), "'s ",
                          level_name(t.level));
  }
  if (!layout_valid(a.layout, t.rank())) {
    return not_applicable("move_to", 4, "layout ", layout_text(a.layout), " is invalid for rank ", t.rank());
  }
  const bool is_move = std::holds_alternative<Move>(spec.op);
  if (!target.faster(a.level, t.level)) {
    const bool row = a.layout.same_placement(Layout::row_major(), t.shape);
    const bool imperfect = !t.contiguous || !t.aligned || !t.layout.same_placement(Layout::row_major(), t.shape);
    const bool transposing = !a.layout.same_placement(t.layout, t.shape);
    if (is_register_level(a.level) || is_move || !(row ? imperfect : transposing)) {
      return not_applicable("move_to", 5, "a move within ", level_name(a.level), " must be a packing copy (",
                            is_move ? "not in a move Spec" : "a row-major destination for a strided, unaligned "
                                                             "or not row-major operand, or a transposing copy "
                                                             "into another layout",
                            "); operand ", int(a.operand), " is ", t.contiguous ? "contiguous" : "strided", ", ",
                            t.aligned ? "aligned" : "unaligned", ", ", layout_text(t.layout));
    }
  }
  const std::uint32_t width = target.vector_elements(t.dtype);
  if (a.level == Level::VRF && a.vector_size != width) {
    return not_applicable("move_to", 6, "vector size ", a.vector_size, " differs from the target's ", width,
                          " for ", dtype_name(t.dtype));
  }
  if (a.level != Level::VRF && a.vector_size != 0) {
    return not_applicable("move_to", 6, "vector size ", a.vector_size, " outside VRF (must be 0)");
  }
  const bool panels = a.level == Level::VRF && t.rank() >= 1 && a.layout == register_panels(t.rank(), width);
  if (a.level == Level::VRF) {
    if (panels) {
      if (!rows_end_partial(t.shape, width)) {
        return not_applicable("move_to", 7, "rows of ", t.shape.back(), " are whole registers of ", width,
                              "; register panels are for a partial last register (VRF takes them row-major)");
      }
      if (!row_runs(t)) {
        return not_applicable("move_to", 7, "operand ", int(a.operand), " is ", layout_text(t.layout),
                              "; register panels load and store row-major rows (masked at their ends)");
      }
    } else {
      if (!a.layout.same_placement(Layout::row_major(), t.shape)) {
        return not_applicable("move_to", 7, "VRF holds row-major registers or register panels (the innermost ",
                              "dimension blocked by ", width, "), not ", layout_text(a.layout));
      }
      if (!register_box(t.shape, width)) {
        return not_applicable("move_to", 7, shape_text(t.shape), " does not split into whole registers of ", width,
                              " elements");
      }
      if (!register_rows_dense(t, width)) {
        return not_applicable("move_to", 7, "operand ", int(a.operand), " is ", t.contiguous ? "" : "strided and ",
                              layout_text(t.layout), "; vec_load and vec_store need each register's elements ",
                              "contiguous and row-major in memory");
      }
    }
  }
  TensorSpec dest = t;
  dest.layout = a.layout;
  if (is_register_level(a.level) && target.level(a.level).capacity > 0 &&
      dest.bytes() > target.level(a.level).capacity) {
    return not_applicable("move_to", 8, shape_text(t.shape), " takes ", dest.bytes(), " bytes but ",
                          level_name(a.level), " holds ", target.level(a.level).capacity);
  }
  if (is_register_level(a.level)) {
    const Level other = a.level == Level::VRF ? Level::RF : Level::VRF;
    for (std::size_t i = 0; i < spec.operands.size(); ++i) {
      if (spec.operands[i].level == other && (i != a.operand || other == Level::VRF)) {
        return not_applicable("move_to", 9, "operand ", i, " is in ", level_name(other), "; no kernel reads both ",
                              "VRF and RF");
      }
    }
  }
  if (a.level == Level::VRF) {
    if (Why w = vector_kernel_fails(spec, a.operand, width, a.layout, panels)) return w;
  }
  if (a.copy && !(keeps_placement(a, t, target) && !t.contiguous)) {
    return not_applicable("move_to", 12, "copy packs a strided operand into a cache in its own placement, where a ",
                          "move would alias it; operand ", int(a.operand), " is ",
                          t.contiguous ? "contiguous" : "strided", " in ", level_name(t.level), ", ",
                          layout_text(t.layout), ", moved to ", level_name(a.level), " ", layout_text(a.layout));
  }
  if (is_move) {
    const Level other = spec.operands[1 - a.operand].level;
    if (!target.has_level(other) || !target.faster(a.level, other)) {
      return not_applicable("move_to", 11, "in a move Spec the destination must be faster than both operands; ",
                            level_name(a.level), " is not faster than ", level_name(other));
    }
  }
  return std::nullopt;
}

}  // namespace

MoveOp move_op(const MoveTo& a, const Spec& spec, const Target& target) {
  const TensorSpec& t = spec.operands[a.operand];
  MoveOp m;
  m.operand = a.operand;
  m.dest = t;
  m.dest.level = a.level;
  if (is_alias(a, t, target)) {
    m.alias = true;
    return m;
  }
  m.dest.layout = a.layout;
  m.dest.vector_size = a.vector_size;
  m.dest.aligned = true;
  m.dest.set_contiguous(true);
  m.dest.shared = false;  // a buffer of its own; the body reads it as shared where a team fills it (move_child_specs)
  const bool is_output = std::size_t{a.operand} + 1 == spec.operands.size();
  m.load = !is_output || accumulates(spec.op);
  m.store = is_output;
  return m;
}

std::optional<NotApplicable> move_to_fails(const MoveTo& action, const Spec& spec, const Target& target) {
  return fails(action, spec, target);
}

ExpandResult expand_move_to(const MoveTo& action, const Spec& spec, const Target& target) {
  if (Why w = fails(action, spec, target)) return *w;
  return expansion(spec, move_op(action, spec, target));
}

}  // namespace kriek
