// TEMPORARY stub of the Spec printing in spec/text.h and spec/spec.h (a simple, unparseable form) so that impl/
// and sched/ link before the real spec text is merged. The lead deletes this file at merge.
#include <ostream>

#include "spec/layout.h"
#include "spec/spec.h"

namespace kriek {

std::ostream& operator<<(std::ostream& out, const TensorSpec& t) {
  print_shape(out, t.shape);
  out << " " << dtype_name(t.dtype) << " " << level_name(t.level) << " " << layout_text(t.layout);
  if (t.vector_size) out << " v" << t.vector_size;
  return out;
}

std::ostream& operator<<(std::ostream& out, const Spec& s) {
  out << op_word(s.op) << (accumulates(s.op) ? "[acc]" : "") << " (";
  for (std::size_t i = 0; i < s.operands.size(); ++i) {
    out << (i == 0 ? "" : i + 1 == s.operands.size() ? " -> " : ", ") << s.operands[i];
  }
  return out << ")" << (s.serial_only ? " serial" : "");
}

}  // namespace kriek
