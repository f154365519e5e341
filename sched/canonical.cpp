// canonical_spec: the three normalization rules of canonical.h. is_canonical runs on every memo lookup of the
// search, so parallel_reachable (which counts work and sizes buffers) is asked only of Specs a rule could change:
// serial ones (rules 1 and 3) and those with a shared operand (rule 3).
#include "sched/canonical.h"

#include <algorithm>

#include "impl/parallel_rule.h"

namespace kriek {
namespace {

/// Rule 2's operands: in L1 and not blocked (a blocked operand's alignment says where its panels start).
bool alignment_moot(const TensorSpec& t) { return t.level == Level::L1 && t.layout.kind != Layout::Kind::blocked; }

bool any_shared(const Spec& spec) {
  return std::any_of(spec.operands.begin(), spec.operands.end(), [](const TensorSpec& t) { return t.shared; });
}

}  // namespace

bool is_canonical(const Spec& spec) {
  for (const TensorSpec& t : spec.operands) {
    if (alignment_moot(t) && !t.aligned) return false;
  }
  const bool shared = any_shared(spec);
  if (!spec.serial_only && !shared) return true;
  // Rule 3: shared under a serial Spec, or where no parallel loop can follow; rule 1: serial_only there.
  return !(shared && spec.serial_only) && parallel_reachable(spec);
}

Spec canonical_spec(const Spec& spec) {
  Spec out = spec;
  for (TensorSpec& t : out.operands) {
    if (alignment_moot(t)) t.aligned = true;
  }
  const bool shared = any_shared(out);
  if (!out.serial_only && !shared) return out;
  const bool reachable = parallel_reachable(out);
  if (shared && (out.serial_only || !reachable)) {
    for (TensorSpec& t : out.operands) t.shared = false;
  }
  if (out.serial_only && !reachable) out.serial_only = false;
  return out;
}

}  // namespace kriek
