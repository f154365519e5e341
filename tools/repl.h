// The REPL: interactive schedule scripting (Figure 1 by hand). A session holds the partial Impl of one Spec;
// each command (tools/repl_commands.h) applies a Sched operator to the focused hole, fills holes with the DP's
// best, or inspects the Impl; every state is kept for undo/redo, and the session can be saved as a replayable
// script.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "tools/repl_session.h"

namespace kriek::tools {

class Repl {
 public:
  /// A session on `target` whose `complete` and `actions` stay within `limits` (0 = unbounded level).
  Repl(Target target, MemoryUse limits, codegen::Backend backend = codegen::kDefaultBackend);

  /// Runs one command line. Prints results on `out`; returns false (and leaves the session unchanged) when the
  /// line is in error, after printing `error: ...` on `out`.
  bool execute(const std::string& line, std::ostream& out);
  /// True after `quit`.
  bool finished() const { return session_.finished; }
  /// What tab completion offers for the word after `before` (the line up to that word): a command name first,
  /// then what that command's argument at that position may be (hole names, levels, layouts, kernels, ...).
  std::vector<std::string> completions(std::string_view before) const;

 private:
  ReplSession session_;
};

/// Reads commands from `in` until its end or `quit`. Interactive: prompts and keeps going after errors.
/// Otherwise (scripts): stops at the first failing line and reports `line N: ...` on `err`; returns the exit code.
int run_repl(std::istream& in, std::ostream& out, std::ostream& err, bool interactive, const Target& target,
             const MemoryUse& limits, codegen::Backend backend = codegen::kDefaultBackend);

}  // namespace kriek::tools
