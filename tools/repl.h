// The REPL: interactive schedule scripting (Figure 1 by hand). A session holds the partial Impl of one Spec;
// each command applies a Sched operator to the focused hole, fills holes with the DP's best, or inspects the
// Impl; every state is kept for undo/redo, and the session can be saved as a replayable script.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sched/schedule.h"
#include "synth/synthesizer.h"

namespace kriek::tools {

class Repl {
 public:
  explicit Repl(Target target);

  /// Runs one command line. Prints results on `out`; returns false (and leaves the session unchanged) when the
  /// line is in error, after printing `error: ...` on `out`.
  bool execute(const std::string& line, std::ostream& out);
  /// True after `quit`.
  bool finished() const { return finished_; }
  /// Names for tab completion: commands, hole names, levels, kernel names.
  std::vector<std::string> completions() const;

 private:
  void run(const std::vector<std::string>& words, std::ostream& out);
  void push(Schedule next, const std::string& line, std::ostream& out);
  const Schedule& current() const;
  Synthesizer& synth();
  void show(std::ostream& out, bool costs) const;

  Target target_;
  std::unique_ptr<Synthesizer> synth_;
  std::vector<Schedule> states_;      ///< states_[i] follows lines_[0..i)
  std::vector<std::string> lines_;    ///< the commands that made each state after the first (`spec ...` first)
  std::size_t at_ = 0;                ///< the current state; states after it are redo-able
  bool finished_ = false;
};

/// Reads commands from `in` until its end or `quit`. Interactive: prompts and keeps going after errors.
/// Otherwise (scripts): stops at the first failing line and reports `line N: ...` on `err`; returns the exit code.
int run_repl(std::istream& in, std::ostream& out, std::ostream& err, bool interactive, const Target& target);

}  // namespace kriek::tools
