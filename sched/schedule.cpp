// The fluent Schedule: focus bookkeeping over the holes of a partial Impl, and each operator as one apply().
#include "sched/schedule.h"

#include <algorithm>
#include <sstream>

#include "sched/default_schedule.h"
#include "spec/error.h"

namespace kriek {
namespace {

/// The hole that continues the schedule inside `node` (a fresh operator result), or nullptr.
const ImplNode* continuation(const ImplNode& node) {
  if (node.is_hole()) return &node;
  if (node.children.empty()) return nullptr;
  const ImplPtr& next = std::holds_alternative<Block>(node.kind) ? node.children.back() : node.children.front();
  return continuation(*next);
}

std::string hole_name(std::size_t index) { return "h" + std::to_string(index + 1); }

}  // namespace

Schedule::Schedule(Spec spec, Target target)
    : Schedule(std::make_shared<const Target>(std::move(target)), make_hole(std::move(spec)), 0) {}

Schedule::Schedule(std::shared_ptr<const Target> target, ImplPtr impl, std::optional<std::size_t> focus)
    : target_(std::move(target)), impl_(std::move(impl)), focus_(focus) {}

std::vector<OpenHole> Schedule::holes() const {
  std::vector<OpenHole> out;
  const auto nodes = kriek::holes(impl_);
  for (std::size_t i = 0; i < nodes.size(); ++i) out.push_back(OpenHole{hole_name(i), nodes[i]->spec});
  return out;
}

std::optional<OpenHole> Schedule::focused() const {
  if (!focus_) return std::nullopt;
  const auto nodes = kriek::holes(impl_);
  return OpenHole{hole_name(*focus_), nodes.at(*focus_)->spec};
}

Schedule Schedule::focus(const std::string& name) const {
  const std::size_t count = kriek::holes(impl_).size();
  for (std::size_t i = 0; i < count; ++i) {
    if (hole_name(i) == name) return Schedule(target_, impl_, i);
  }
  std::ostringstream out;
  out << "no hole named " << name << "; the schedule has ";
  if (count == 0) out << "none (it is complete)";
  else out << "h1 to h" << count;
  throw UserError(out.str());
}

std::size_t Schedule::focus_index(const char* what) const {
  if (!focus_) throw UserError(std::string(what) + ": the schedule is complete; there is no hole to apply it to");
  return *focus_;
}

Schedule Schedule::apply(const Action& action) const {
  const std::size_t index = focus_index(action_text(action).c_str());
  const ImplNode* hole = kriek::holes(impl_).at(index);
  ApplyResult r = kriek::apply(action, hole->spec, *target_);
  if (const auto* na = std::get_if<NotApplicable>(&r)) {
    std::ostringstream out;
    out << "cannot apply `" << action_text(action, hole->spec) << "` to " << hole_name(index) << " (" << hole->spec
        << "): " << na->reason;
    throw UserError(out.str());
  }
  const ImplPtr& sub = std::get<ImplPtr>(r);
  ImplPtr root = replace_hole(impl_, index, sub);
  std::optional<std::size_t> focus;
  if (const ImplNode* next = continuation(*sub)) {
    const auto inner = kriek::holes(sub);
    focus = index + static_cast<std::size_t>(std::find(inner.begin(), inner.end(), next) - inner.begin());
  } else if (!is_complete(root)) {
    focus = 0;
  }
  return Schedule(target_, std::move(root), focus);
}

Schedule Schedule::tile_out(const Shape& tile, bool parallel) const { return apply(TileOut{tile, parallel}); }

Schedule Schedule::split(std::int64_t k, std::uint8_t axis) const {
  const std::size_t index = focus_index("split");
  const Spec& spec = kriek::holes(impl_).at(index)->spec;
  if (accumulates(spec.op) || !std::holds_alternative<ImplPtr>(kriek::apply(ToAccum{}, spec, *target_))) {
    return apply(Split{k, axis});
  }
  // to_accum focuses its accumulating statement; the split goes there.
  return apply(ToAccum{}).apply(Split{k, axis});
}

Schedule Schedule::slide(std::uint8_t dim, std::int64_t size, Level level, Layout layout) const {
  return apply(Slide{dim, size, level, layout});
}

Schedule Schedule::move(std::size_t operand, Level level, Layout layout, std::uint32_t vector_size) const {
  if (level == Level::VRF && vector_size == 0) {
    const auto& ops = kriek::holes(impl_).at(focus_index("move"))->spec.operands;
    vector_size = target_->vector_elements(operand < ops.size() ? ops[operand].dtype : Dtype::f32);
  }
  if (operand > 255) throw UserError("move: operand " + std::to_string(operand) + " does not exist");
  return apply(MoveTo{static_cast<std::uint8_t>(operand), level, layout, vector_size});
}

const Spec& Schedule::focused_input(const char* what, std::size_t input) const {
  const Spec& spec = kriek::holes(impl_).at(focus_index(what))->spec;
  if (input >= spec.input_count()) {
    std::ostringstream out;
    out << what << ": input " << input << " does not exist; " << spec << " has " << spec.input_count() << " inputs";
    throw UserError(out.str());
  }
  return spec;
}

Schedule Schedule::move_input(std::size_t input, Level level, Layout layout, std::uint32_t vector_size) const {
  focused_input("move_input", input);
  return move(input, level, layout, vector_size);
}

Schedule Schedule::move_output(Level level, Layout layout, std::uint32_t vector_size) const {
  const Spec& spec = kriek::holes(impl_).at(focus_index("move_output"))->spec;
  return move(spec.operands.size() - 1, level, layout, vector_size);
}

Schedule Schedule::copy_input(std::size_t input, Level level) const {
  const Spec& spec = focused_input("copy_input", input);
  return apply(MoveTo{static_cast<std::uint8_t>(input), level, spec.operands[input].layout, 0, true});
}

Schedule Schedule::to_accum() const { return apply(ToAccum{}); }

Schedule Schedule::bufferize(std::uint8_t cut, Level level, Layout layout) const {
  return apply(Bufferize{cut, level, layout});
}

Schedule Schedule::select(KernelKind kernel) const { return apply(Select{kernel}); }

Schedule Schedule::complete() const {
  const Target& target = *target_;
  return complete([&target](const Spec& spec) { return default_schedule(spec, target); });
}

namespace {

/// Replaces hole `i` of `root` by `completer`'s Impl of its Spec, checking that it is one, complete.
ImplPtr fill_hole(const ImplPtr& root, std::size_t i, const std::function<ImplPtr(const Spec&)>& completer) {
  const Spec spec = kriek::holes(root)[i]->spec;
  ImplPtr filled = completer(spec);
  if (!filled || filled->spec != spec) {
    std::ostringstream out;
    out << "complete: the completer did not return an Impl of " << spec;
    throw UserError(out.str());
  }
  if (!is_complete(filled)) throw UserError("complete: the completer left holes in its Impl");
  return replace_hole(root, i, std::move(filled));
}

}  // namespace

Schedule Schedule::complete(const std::function<ImplPtr(const Spec&)>& completer) const {
  ImplPtr root = impl_;
  // Fill from the last hole backwards so that earlier holes keep their indices.
  for (std::size_t i = kriek::holes(root).size(); i-- > 0;) root = fill_hole(root, i, completer);
  return Schedule(target_, std::move(root), std::nullopt);
}

Schedule Schedule::complete_focused(const std::function<ImplPtr(const Spec&)>& completer) const {
  ImplPtr filled = fill_hole(impl_, focus_index("complete"), completer);
  const bool left = !kriek::holes(filled).empty();
  return Schedule(target_, std::move(filled), left ? std::optional<std::size_t>(0) : std::nullopt);
}

Schedule schedule(const Spec& spec, const Target& target) { return Schedule(spec, target); }

}  // namespace kriek
