// canonical_spec: the two normalization rules of canonical.h.
#include "sched/canonical.h"

#include "impl/parallel_rule.h"

namespace kriek {
namespace {

bool serial_matters(const Spec& spec) { return parallel_reachable(spec); }

/// Rule 2's operands: in L1 and not blocked (a blocked operand's alignment says where its panels start).
bool alignment_moot(const TensorSpec& t) { return t.level == Level::L1 && t.layout.kind != Layout::Kind::blocked; }

}  // namespace

bool is_canonical(const Spec& spec) {
  for (const TensorSpec& t : spec.operands) {
    if (alignment_moot(t) && !t.aligned) return false;
  }
  return !spec.serial_only || serial_matters(spec);
}

Spec canonical_spec(const Spec& spec) {
  Spec out = spec;
  for (TensorSpec& t : out.operands) {
    if (alignment_moot(t)) t.aligned = true;
  }
  if (out.serial_only && !serial_matters(out)) out.serial_only = false;
  return out;
}

}  // namespace kriek
