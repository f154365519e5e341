// `kriek repl` and `kriek script FILE`. On a terminal the REPL reads lines with libedit (history, tab completion
// of commands, hole names, levels and kernels); from a pipe or a file it replays a script and stops at the first
// failing line.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include <editline/readline.h>

#include "spec/error.h"
#include "spec/user_file.h"
#include "tools/command.h"
#include "tools/repl.h"

namespace kriek::tools {
namespace {

Repl* completing = nullptr;  // the session tab completion reads (libedit's callbacks take no context)

std::string completing_before;  // the line up to the word being completed

char* complete_word(const char* text, int state) {
  static std::vector<std::string> matches;
  static std::size_t next = 0;
  if (state == 0) {
    matches.clear();
    next = 0;
    for (const std::string& name : completing->completions(completing_before)) {
      if (name.rfind(text, 0) == 0) matches.push_back(name);
    }
  }
  return next < matches.size() ? strdup(matches[next++].c_str()) : nullptr;
}

char** complete(const char* text, int start, int) {
  rl_attempted_completion_over = 1;
  completing_before.assign(rl_line_buffer, static_cast<std::size_t>(std::max(start, 0)));
  return rl_completion_matches(text, complete_word);
}

int interactive(const Target& target, const MemoryUse& limits, codegen::Backend backend) {
  Repl repl(target, limits, backend);
  completing = &repl;
  rl_attempted_completion_function = complete;
  std::cout << "kriek repl: schedule by hand (help lists the commands, quit leaves)\n";
  while (!repl.finished()) {
    char* raw = readline("kriek> ");
    if (!raw) break;
    std::string line(raw);
    std::free(raw);
    if (!line.empty()) add_history(line.c_str());
    repl.execute(line, std::cout);
  }
  completing = nullptr;
  return 0;
}

/// The backend `run` compiles with (--backend).
codegen::Backend session_backend(const Args& args) {
  const auto* b = args.get("--backend");
  return b ? codegen::parse_backend(*b) : codegen::kDefaultBackend;
}

}  // namespace

int run_repl_command(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"--target", "--profile", "--memory", "--backend"}, {"--no-profile"});
  if (!args.positional.empty()) user_error("kriek repl takes no arguments (got '", args.positional[0], "')");
  const Target target = command_target(args);
  const MemoryUse limits = command_limits(args, target);
  const codegen::Backend backend = session_backend(args);
  if (isatty(STDIN_FILENO)) return interactive(target, limits, backend);
  return run_repl(std::cin, std::cout, std::cerr, false, target, limits, backend);
}

int run_script(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"--target", "--profile", "--memory", "--backend"}, {"--no-profile"});
  if (args.positional.size() != 1) user_error("usage: kriek script FILE [--target T] [--memory L1=32K,...] [--backend B]");
  std::istringstream file(read_user_file(args.positional[0], "the script"));
  const Target target = command_target(args);
  return run_repl(file, std::cout, std::cerr, false, target, command_limits(args, target), session_backend(args));
}

}  // namespace kriek::tools
