// canonical_spec: the three normalization rules of canonical.h.
#include "sched/canonical.h"

#include "impl/parallel_rule.h"

namespace kriek {
namespace {

bool serial_matters(const Spec& spec) { return parallel_reachable(spec); }

/// Rule 2's operands: in L1 and not blocked (a blocked operand's alignment says where its panels start).
bool alignment_moot(const TensorSpec& t) { return t.level == Level::L1 && t.layout.kind != Layout::Kind::blocked; }

/// Rule 3: no parallel loop can run in the Spec's subtree.
bool sharing_moot(const Spec& spec) { return spec.serial_only || !parallel_reachable(spec); }

}  // namespace

bool is_canonical(const Spec& spec) {
  const bool no_team = sharing_moot(spec);
  for (const TensorSpec& t : spec.operands) {
    if ((alignment_moot(t) && !t.aligned) || (no_team && t.shared)) return false;
  }
  return !spec.serial_only || serial_matters(spec);
}

Spec canonical_spec(const Spec& spec) {
  Spec out = spec;
  const bool no_team = sharing_moot(spec);
  for (TensorSpec& t : out.operands) {
    if (alignment_moot(t)) t.aligned = true;
    if (no_team) t.shared = false;
  }
  if (out.serial_only && !serial_matters(out)) out.serial_only = false;
  return out;
}

}  // namespace kriek
