// The fluent scheduling API of the Kriek report's Figure 1: an immutable Schedule holds a partial Impl and a
// focused hole; each operator applies one Sched action to the focused hole and returns a new Schedule. Illegal
// steps throw UserError with the operator's numbered reason (this is a user-facing API, e.g. the REPL's).
//
//   Schedule s = schedule(spec, target);
//   s = s.tile_out({32, 32}).move_input(0, Level::L1).split(64).move_input(1, Level::L1)
//        .move_output(Level::L1).complete();
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sched/action.h"

namespace kriek {

/// An open hole of a Schedule: its name (`h1`, `h2`, ... in the order of holes() in impl/node.h) and its Spec.
struct OpenHole {
  std::string name;
  Spec spec;
};

/// Focus rule: after an operator, the focus moves to the hole that continues the schedule inside what it made
/// (a loop's first body, a move's body, a block's last statement, a pipeline's head); when the operator made no
/// such hole (select, complete) the focus is the first open hole. `focus("h2")` sets it by name.
class Schedule {
 public:
  Schedule(Spec spec, Target target);

  /// The partial Impl (complete once holes() is empty).
  const ImplPtr& impl() const { return impl_; }
  std::vector<OpenHole> holes() const;
  /// The focused hole, or nullopt when the Impl is complete.
  std::optional<OpenHole> focused() const;
  /// The focused hole's index in holes() order, or nullopt when the Impl is complete.
  std::optional<std::size_t> focused_index() const { return focus_; }
  const Target& target() const { return *target_; }

  /// Focuses the hole named `name` (e.g. "h2"); throws UserError when there is none.
  Schedule focus(const std::string& name) const;

  Schedule tile_out(const Shape& tile, bool parallel = false) const;
  /// Splits the reduction by k (axis 0; a conv's filter rows 1, its columns 2); a Spec that does not accumulate
  /// gets to_accum first (its zero stays a hole).
  Schedule split(std::int64_t k, std::uint8_t axis = 0) const;
  Schedule slide(std::uint8_t dim, std::int64_t size, Level level, Layout layout = Layout::row_major()) const;
  /// Moves input `input`; for VRF, vector_size 0 means the target's vector size.
  Schedule move_input(std::size_t input, Level level, Layout layout = Layout::row_major(),
                      std::uint32_t vector_size = 0) const;
  Schedule move_output(Level level, Layout layout = Layout::row_major(), std::uint32_t vector_size = 0) const;
  /// Packs strided input `input` into a contiguous buffer at cache `level` in its own placement (MoveTo::copy),
  /// where move_input would alias it.
  Schedule copy_input(std::size_t input, Level level) const;
  Schedule to_accum() const;
  Schedule bufferize(std::uint8_t cut, Level level, Layout layout = Layout::row_major()) const;
  Schedule select(KernelKind kernel) const;
  /// Any action, applied to the focused hole.
  Schedule apply(const Action& action) const;

  /// Fills every hole with the default schedule (sched/default_schedule.h).
  Schedule complete() const;
  /// Fills every hole with `completer(hole's Spec)`, which must return a complete Impl of that Spec.
  Schedule complete(const std::function<ImplPtr(const Spec&)>& completer) const;
  /// Fills only the focused hole with `completer(its Spec)`; the focus moves to the first hole left.
  Schedule complete_focused(const std::function<ImplPtr(const Spec&)>& completer) const;

 private:
  Schedule(std::shared_ptr<const Target> target, ImplPtr impl, std::optional<std::size_t> focus);
  /// The focused hole's index, or a UserError naming the operator when the Impl is complete.
  std::size_t focus_index(const char* what) const;
  /// The focused hole's Spec, which must have input `input` (UserError naming `what` otherwise).
  const Spec& focused_input(const char* what, std::size_t input) const;
  Schedule move(std::size_t operand, Level level, Layout layout, std::uint32_t vector_size) const;

  std::shared_ptr<const Target> target_;
  ImplPtr impl_;
  std::optional<std::size_t> focus_;
};

/// A Schedule whose Impl is one hole of `spec`.
Schedule schedule(const Spec& spec, const Target& target);

}  // namespace kriek
