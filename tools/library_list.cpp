// Parsing `kriek library` lists (see library_list.h).
#include "tools/library_list.h"

#include <set>
#include <sstream>

#include "codegen/emit_c.h"
#include "spec/error.h"
#include "spec/text.h"
#include "tools/command.h"

namespace kriek::tools {
namespace {

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

}  // namespace

std::vector<LibraryEntry> parse_library_list(std::string_view text, const std::string& file, const Target& target) {
  std::vector<LibraryEntry> out;
  std::set<std::string> symbols;
  std::istringstream in{std::string(text)};
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    if (auto hash = raw.find('#'); hash != std::string::npos) raw.resize(hash);
    const std::string line = trimmed(raw);
    if (line.empty()) continue;
    LibraryEntry e;
    e.line = number;
    // `NAME = SPEC`: a name before the first '=' that is a C identifier; spec text itself has no '='
    // outside brackets (reducesum[axis=1]), so only an '=' before any '[' names the entry.
    const auto eq = line.find('=');
    const auto bracket = line.find('[');
    if (eq != std::string::npos && (bracket == std::string::npos || eq < bracket)) {
      e.symbol = trimmed(line.substr(0, eq));
      e.spec_text = trimmed(line.substr(eq + 1));
      if (!is_c_identifier(e.symbol)) {
        user_error(file, ":", number, ": the kernel name '", e.symbol, "' is not a C identifier");
      }
    } else {
      e.spec_text = line;
    }
    try {
      e.spec = parse_spec(e.spec_text, target);
    } catch (const UserError& err) {
      user_error(file, ":", number, ": ", err.what());
    }
    if (e.symbol.empty()) {
      e.symbol = codegen::function_name(e.spec) + (e.spec.serial_only ? "_serial" : "");
      bool duplicate = false;
      for (const auto& prior : out) duplicate |= prior.symbol == e.symbol && prior.spec == e.spec;
      if (duplicate) continue;
    }
    if (!symbols.insert(e.symbol).second) {
      user_error(file, ":", number, ": the kernel name '", e.symbol, "' is used twice");
    }
    out.push_back(std::move(e));
  }
  if (out.empty()) user_error(file, " lists no Specs");
  return out;
}

std::vector<LibraryEntry> shard_of(const std::vector<LibraryEntry>& entries, std::size_t index, std::size_t count) {
  std::vector<LibraryEntry> out;
  for (std::size_t i = index; i < entries.size(); i += count) out.push_back(entries[i]);
  return out;
}

}  // namespace kriek::tools
