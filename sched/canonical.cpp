// canonical_spec: the three normalization rules of canonical.h. canonicalized runs on every memo lookup of the
// search, so parallel_reachable (which counts work and sizes buffers) is asked only of Specs a rule could change,
// serial ones (rules 1 and 3) and those with a shared operand (rule 3), and once each.
#include "sched/canonical.h"

#include <algorithm>
#include <utility>

#include "impl/parallel_rule.h"

namespace kriek {
namespace {

/// Rule 2's operands: in L1 and not blocked (a blocked operand's alignment says where its panels start).
bool alignment_moot(const TensorSpec& t) { return t.level == Level::L1 && t.layout.kind != Layout::Kind::blocked; }

bool any_shared(const Spec& spec) {
  return std::any_of(spec.operands.begin(), spec.operands.end(), [](const TensorSpec& t) { return t.shared; });
}

}  // namespace

std::optional<Spec> canonicalized(const Spec& spec) {
  const bool misaligned = std::any_of(spec.operands.begin(), spec.operands.end(),
                                      [](const TensorSpec& t) { return alignment_moot(t) && !t.aligned; });
  const bool shared = any_shared(spec);
  const bool reachable = (!spec.serial_only && !shared) || parallel_reachable(spec);
  const bool drop_shared = shared && (spec.serial_only || !reachable);  // rule 3
  const bool drop_serial = spec.serial_only && !reachable;              // rule 1
  if (!misaligned && !drop_shared && !drop_serial) return std::nullopt;
  Spec out = spec;
  for (TensorSpec& t : out.operands) {
    if (alignment_moot(t)) t.aligned = true;  // rule 2
    if (drop_shared) t.shared = false;
  }
  if (drop_serial) out.serial_only = false;
  return out;
}

Spec canonical_spec(const Spec& spec) {
  std::optional<Spec> canonical = canonicalized(spec);
  return canonical ? std::move(*canonical) : spec;
}

bool is_canonical(const Spec& spec) { return !canonicalized(spec); }

}  // namespace kriek
