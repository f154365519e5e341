// The REPL's commands as one table: each command's name, arguments, help text, what tab completion offers for
// each argument, and its handler. `help`, argument counts, completion and dispatch all read this table, so a new
// command is one entry.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "tools/repl_session.h"

namespace kriek::tools {

struct ReplCommand {
  std::string_view name;
  /// The arguments as `help` shows them after the name, e.g. "E1 E2 ... [parallel]".
  std::string_view args;
  std::string_view help;
  std::size_t min_args = 0;
  std::size_t max_args = 0;
  /// The words argument `i` (from 0) may be, for tab completion; nullptr: none to offer.
  std::vector<std::string> (*complete)(const ReplSession& session, std::size_t i) = nullptr;
  /// Runs the command: `words` are the line's words (the name first), `line` the line as recorded for `save`.
  void (*run)(ReplSession& session, const std::vector<std::string>& words, const std::string& line,
              std::ostream& out) = nullptr;

  /// "name args", as `help` lists it and usage errors quote it.
  std::string usage() const;
};

/// `compare` (tools/repl_compare.cpp): the complete Impl and the DP's pick timed in alternating rounds.
void run_compare(ReplSession& session, const std::vector<std::string>& words, const std::string& line,
                 std::ostream& out);

/// Every command, in the order `help` lists them.
const std::vector<ReplCommand>& repl_commands();
/// The command named `name` (`exit` is `quit`), or nullptr.
const ReplCommand* find_repl_command(std::string_view name);

}  // namespace kriek::tools
