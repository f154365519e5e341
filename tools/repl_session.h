// The state the REPL's commands act on: the target, its cost model and memory limits, the DP (made on first use),
// and every Schedule of the session in order, with the line that made each, for undo, redo and save.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/backend.h"
#include "sched/schedule.h"
#include "synth/synthesizer.h"

namespace kriek::tools {

struct ReplSession {
  ReplSession(Target target, MemoryUse limits, codegen::Backend backend = codegen::kDefaultBackend);

  Target target;
  /// The prices of the session: the DP's (synth()), `cost`'s and the memory around a hole all use it.
  CostModel model;
  /// What `complete` and `actions` may use (the target's capacities unless --memory narrowed them).
  MemoryUse limits;
  /// What `run` compiles with (kriek repl --backend).
  codegen::Backend backend;
  std::vector<Schedule> states;    ///< states[i] follows lines[0..i]
  std::vector<std::string> lines;  ///< the commands that made each state (`spec ...` first)
  std::size_t at = 0;              ///< the current state; states after it are redo-able
  bool finished = false;
  /// Median seconds per call `run` measured, by the printed Impl: `cost` shows them beside the prediction.
  std::map<std::string, double> measured;

  /// The current Schedule; UserError when no Spec was given yet.
  const Schedule& current() const;
  /// The focused hole of the current Schedule; UserError naming `what` when the Impl is complete.
  OpenHole focused(const char* what) const;
  /// What a completion of `s`'s focused hole may use: `limits` less what the nodes around it hold (a register tile
  /// the hole runs inside leaves the rest of the registers), at least one byte of each bounded level (0 would mean
  /// unbounded). UserError when `s` is complete.
  MemoryUse hole_limits(const Schedule& s) const;
  /// The DP, made on first use and kept for the session (every hole it completes reuses what it solved).
  Synthesizer& synth();
  /// Starts over with `first` (a `spec` line).
  void start(Schedule first, const std::string& line, std::ostream& out);
  /// Makes `next` the current state (dropping the states undone before it) and shows it.
  void push(Schedule next, const std::string& line, std::ostream& out);
  /// Prints the partial Impl and its open holes; with `costs`, each node's cost and the peak per level.
  void show(std::ostream& out, bool costs) const;

 private:
  std::unique_ptr<Synthesizer> synth_;
};

}  // namespace kriek::tools
