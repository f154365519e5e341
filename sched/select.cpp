// select: the kernel legality check and the Kernel leaf.
#include "sched/select.h"

#include "sched/support.h"

namespace kriek {

std::optional<NotApplicable> select_fails(const Select& action, const Spec& spec, const Target& target) {
  if (auto why = kernel_illegal(action.kernel, spec, target)) {
    return sched_detail::not_applicable("select", 1, kernel_name(action.kernel), ": ", *why);
  }
  return std::nullopt;
}

ExpandResult expand_select(const Select& action, const Spec& spec, const Target& target) {
  if (auto why = select_fails(action, spec, target)) return *why;
  return sched_detail::expansion(spec, KernelCall{action.kernel});
}

}  // namespace kriek
