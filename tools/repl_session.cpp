// The REPL's session state (see repl_session.h).
#include "tools/repl_session.h"

#include <iomanip>
#include <ostream>

#include "impl/printer.h"
#include "spec/error.h"

namespace kriek::tools {

ReplSession::ReplSession(Target t, MemoryUse l, codegen::Backend b)
    : target(std::move(t)), model(CostModel::for_target(target)), limits(l), backend(b) {}

const Schedule& ReplSession::current() const {
  if (states.empty()) user_error("no Spec yet: start with `spec TEXT`, e.g. spec matmul 64x64x64 f32");
  return states[at];
}

OpenHole ReplSession::focused(const char* what) const {
  const auto hole = current().focused();
  if (!hole) user_error("the Impl is complete: no hole to ", what);
  return *hole;
}

Synthesizer& ReplSession::synth() {
  // Every register class: a hole's limits are what the nodes around it leave, often less than a register level.
  if (!synth_) synth_ = std::make_unique<Synthesizer>(target, model, SynthOptions{.every_class = true});
  return *synth_;
}

void ReplSession::start(Schedule first, const std::string& line, std::ostream& out) {
  states.assign(1, std::move(first));
  lines.assign(1, line);
  at = 0;
  show(out, false);
}

void ReplSession::push(Schedule next, const std::string& line, std::ostream& out) {
  states.erase(states.begin() + static_cast<std::ptrdiff_t>(at) + 1, states.end());
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at) + 1, lines.end());
  states.push_back(std::move(next));
  lines.push_back(line);
  ++at;
  show(out, false);
}

MemoryUse ReplSession::hole_limits(const Schedule& s) const {
  const std::optional<std::size_t> hole = s.focused_index();
  if (!hole) user_error("the Impl is complete: no hole to complete");
  const MemoryUse around = memory_around_hole(s.impl(), *hole, target, model);
  MemoryUse room = limits;
  for (std::size_t l = 0; l < room.bytes.size(); ++l) {
    if (room.bytes[l] > 0) room.bytes[l] = std::max<std::int64_t>(1, room.bytes[l] - around.bytes[l]);
  }
  return room;
}

void ReplSession::show(std::ostream& out, bool costs) const {
  const Schedule& s = current();
  PrintOptions options;
  if (costs) {
    options.annotate = [&](const ImplNode& n) {
      if (n.is_hole()) return std::string("?");
      return std::to_string(evaluate(ImplPtr(ImplPtr{}, &n), target, model).cost);
    };
  }
  out << print_impl(s.impl(), options);
  const auto open = s.holes();
  if (open.empty()) {
    out << "complete\n";
  } else {
    const auto focus = s.focused();
    KRIEK_ASSERT(focus.has_value(), "a partial schedule with open holes has a focused one");
    out << open.size() << " open hole" << (open.size() == 1 ? "" : "s") << ", focus " << focus->name << "\n";
  }
  if (costs) {
    const ImplCost c = evaluate(s.impl(), target, model);
    out << "cost " << c.cost << (open.empty() ? "" : " (holes not counted)") << ", peak " << c.peak;
    if (auto m = measured.find(print_impl(s.impl())); m != measured.end()) {
      out << std::setprecision(3) << "; measured " << m->second * 1e6 << " us per call (run), predicted "
          << static_cast<double>(c.cost) / 16 << " cycles";
    }
    out << "\n";
  }
}

}  // namespace kriek::tools
