// The default schedule, step by step: each step applies one Sched operator and schedules the holes it makes
// the same way, until kernels are reached.
#include "sched/default_schedule.h"

#include <sstream>

#include "sched/action.h"
#include "sched/support.h"
#include "sched/to_accum.h"
#include "spec/error.h"

namespace kriek {
namespace {

using namespace sched_detail;

class Defaulter {
 public:
  explicit Defaulter(const Target& target) : target_(target) {}

  ImplPtr run(const Spec& spec) {
    if (++depth_ > 64) fail(spec, "the default schedule does not terminate");
    ImplPtr out = step(spec);
    --depth_;
    return out;
  }

 private:
  [[noreturn]] void fail(const Spec& spec, const std::string& why) {
    std::ostringstream out;
    out << "no default schedule for " << spec << ": " << why;
    throw UserError(out.str());
  }

  /// Applies `action` and schedules every hole it makes.
  ImplPtr then(const Action& action, const Spec& spec) {
    ApplyResult r = apply(action, spec, target_);
    if (auto* na = std::get_if<NotApplicable>(&r)) fail(spec, na->reason);
    const ImplPtr& node = std::get<ImplPtr>(r);
    if (node->children.empty()) return node;
    std::vector<ImplPtr> children;
    for (const ImplPtr& c : node->children) children.push_back(c->is_hole() ? run(c->spec) : c);
    return with_children(*node, std::move(children));
  }

  ImplPtr step(const Spec& spec) {
    const auto kernels = kernels_for(spec, target_);
    if (!kernels.empty()) return make_kernel(spec, kernels.front(), target_);
    if (const auto* conv = std::get_if<Conv>(&spec.op); conv && conv->padded()) {
      return then(PadImage{spec.input(0).level, Layout::row_major()}, spec);
    }
    if (std::holds_alternative<Compose>(spec.op)) {
      return then(Bufferize{1, target_.levels.front().level, Layout::row_major()}, spec);
    }
    for (const auto& t : spec.operands) {
      if (t.dtype != Dtype::f32) fail(spec, std::string("no kernel computes ") + std::string(dtype_name(t.dtype)));
      if (t.level == Level::VRF) return vector_step(spec);
    }
    return scalar_step(spec);
  }

  ImplPtr scalar_step(const Spec& spec) {
    const TensorSpec& out = spec.output();
    if (out.elements() > 1) return then(TileOut{Shape(out.rank(), 1), false}, spec);
    const auto r = reduction_of(spec);
    if (!to_accum_fails(ToAccum{}, spec, target_)) return then(ToAccum{}, spec);
    if (r && r->extent > 1) return then(Split{1}, spec);
    if (out.level != Level::RF) return then(output_to(Level::RF, spec), spec);
    fail(spec, "the target has no kernel for it");
  }

  MoveTo output_to(Level level, const Spec& spec) const {
    return MoveTo{static_cast<std::uint8_t>(spec.operands.size() - 1), level, Layout::row_major(), 0};
  }

  /// Moves operand `i` into VRF; first, when vec_load or vec_store could not reach it (strided, or not
  /// row-major), packs it into a row-major buffer at its own level.
  ImplPtr into_vrf(std::size_t i, const Spec& spec) {
    const TensorSpec& t = spec.operands[i];
    const auto op = static_cast<std::uint8_t>(i);
    if (!t.contiguous || !t.layout.same_placement(Layout::row_major(), t.shape)) {
      return then(MoveTo{op, t.level, Layout::row_major(), 0}, spec);
    }
    // Register panels where rows are not whole registers and a kernel needs rows of registers (a matmul) or
    // another operand is in panels already (elementwise registers must match). Rows of whole registers are
    // row-major in VRF (move_to 7), and place their elements as panels of them do.
    const std::uint32_t width = target_.vector_elements(t.dtype);
    bool panels = std::holds_alternative<Matmul>(spec.op) || !register_box(t.shape, width);
    for (const TensorSpec& o : spec.operands) panels |= in_register_panels(o);
    panels &= rows_end_partial(t.shape, width);
    return then(MoveTo{op, Level::VRF, panels ? register_panels(t.rank(), width) : Layout::row_major(), width}, spec);
  }

  /// Tiles the Spec so that every operand is one vector register of the VRF operand `v`, if it is not already.
  std::optional<ImplPtr> one_register(const Spec& spec, std::size_t v) {
    const TensorSpec& t = spec.operands[v];
    auto box = register_box(t.shape, t.vector_size);
    if (in_register_panels(t)) {
      // One register of a row (the row's last one partial).
      box = Shape(t.rank(), 1);
      box->back() = std::min<std::int64_t>(t.vector_size, t.shape.back());
    }
    if (!box) fail(spec, "operand " + std::to_string(v) + " does not split into whole vector registers");
    if (*box == spec.output().shape) return std::nullopt;
    if (t.shape != spec.output().shape) fail(spec, "VRF operands of elementwise ops need the output's shape");
    return then(TileOut{*box, false}, spec);
  }

  ImplPtr vector_step(const Spec& spec) {
    std::size_t v = 0;
    for (std::size_t i = 0; i < spec.operands.size(); ++i) {
      if (spec.operands[i].level == Level::RF) fail(spec, "no kernel reads both VRF and RF");
      if (spec.operands[i].level == Level::VRF) v = i;
    }
    if (std::holds_alternative<Matmul>(spec.op)) return matmul_step(spec);
    const bool elementwise = std::holds_alternative<Zero>(spec.op) || std::holds_alternative<Unary>(spec.op) ||
                             std::holds_alternative<Binary>(spec.op) || std::holds_alternative<Move>(spec.op);
    if (!elementwise) fail(spec, std::string("no vector kernel implements ") + std::string(op_word(spec.op)));
    if (auto tiled = one_register(spec, v)) return *tiled;
    if (std::holds_alternative<Move>(spec.op)) {
      fail(spec, "vec_load and vec_store need the memory side contiguous and row-major; a move Spec cannot copy "
                 "it at its own level (the enclosing Spec packs it before moving it into VRF)");
    }
    for (std::size_t i = 0; i < spec.operands.size(); ++i) {
      if (spec.operands[i].level != Level::VRF) return into_vrf(i, spec);
    }
    fail(spec, "the target has no vector kernel for it");
  }

  ImplPtr matmul_step(const Spec& spec) {
    const TensorSpec& a = spec.input(0);
    const TensorSpec& c = spec.output();
    const std::int64_t width = target_.vector_elements(c.dtype);
    if (a.rank() != 2 && a.rank() != 3) fail(spec, "vector kernels take rank-2 matmuls or batches of them only");
    if (a.level == Level::VRF) fail(spec, "bcast_fma reads the lhs from memory, not VRF");
    const bool panels = in_register_panels(c) || in_register_panels(spec.input(1));
    const std::int64_t n = c.shape.back();
    if (!panels && n % width != 0) fail(spec, "n is not a multiple of the vector size");
    // One register of one row (of one batch).
    Shape tile(c.rank(), 1);
    tile.back() = std::min(width, n);
    if (c.shape != tile) return then(TileOut{tile, false}, spec);
    if (c.level != Level::VRF) return into_vrf(spec.operands.size() - 1, spec);
    if (!accumulates(spec.op)) return then(ToAccum{}, spec);
    if (a.shape.back() > 1) return then(Split{1}, spec);
    if (spec.input(1).level != Level::VRF) return into_vrf(1, spec);
    fail(spec, "bcast_fma does not apply");
  }

  const Target& target_;
  int depth_ = 0;
};

}  // namespace

ImplPtr default_schedule(const Spec& spec, const Target& target) { return Defaulter(target).run(spec); }

}  // namespace kriek
