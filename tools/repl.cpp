// The REPL's line handling: words, comments, dispatch through the command table, errors, completion, scripts.
#include "tools/repl.h"

#include <iostream>
#include <sstream>

#include "spec/error.h"
#include "tools/repl_commands.h"

namespace kriek::tools {
namespace {

std::vector<std::string> split_words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

Repl::Repl(Target target, MemoryUse limits, codegen::Backend backend)
    : session_(std::move(target), limits, backend) {}

bool Repl::execute(const std::string& line, std::ostream& out) {
  const std::vector<std::string> words = split_words(line);
  if (words.empty() || words[0][0] == '#') return true;
  try {
    const ReplCommand* c = find_repl_command(words[0]);
    if (!c) user_error("unknown command '", words[0], "' (help lists them)");
    const std::size_t n = words.size() - 1;
    if (n < c->min_args || n > c->max_args) user_error("usage: ", c->usage());
    std::string joined;
    for (const auto& w : words) joined += (joined.empty() ? "" : " ") + w;
    c->run(session_, words, joined, out);
    return true;
  } catch (const UserError& e) {
    out << "error: " << e.what() << "\n";
    return false;
  }
}

std::vector<std::string> Repl::completions(std::string_view before) const {
  const std::vector<std::string> words = split_words(before);
  std::vector<std::string> out;
  if (words.empty()) {
    for (const ReplCommand& c : repl_commands()) out.emplace_back(c.name);
    return out;
  }
  const ReplCommand* c = find_repl_command(words[0]);
  if (!c || !c->complete) return out;
  return c->complete(session_, words.size() - 1);
}

int run_repl(std::istream& in, std::ostream& out, std::ostream& err, bool interactive, const Target& target,
             const MemoryUse& limits, codegen::Backend backend) {
  Repl repl(target, limits, backend);
  std::string line;
  std::size_t number = 0;
  while (!repl.finished()) {
    if (interactive) out << "kriek> " << std::flush;
    if (!std::getline(in, line)) break;
    ++number;
    std::ostringstream result;
    const bool ok = repl.execute(line, result);
    if (!ok && !interactive) {
      std::string message = result.str();
      const auto pos = message.rfind("error: ");
      err << "kriek: error: line " << number << ": " << message.substr(pos == std::string::npos ? 0 : pos + 7);
      return 1;
    }
    out << result.str();
  }
  return 0;
}

}  // namespace kriek::tools
