// Argument reading shared by the subcommands.
#include <algorithm>

#include "spec/error.h"
#include "tools/command.h"

namespace kriek::tools {

const std::string* Args::get(std::string_view flag) const {
  for (const auto& [f, v] : flags) {
    if (f == flag) return &v;
  }
  return nullptr;
}

bool Args::has(std::string_view flag) const { return get(flag) != nullptr; }

Args parse_args(const std::vector<std::string>& args, const std::vector<std::string_view>& valued,
                const std::vector<std::string_view>& switches) {
  Args out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    if (std::find(switches.begin(), switches.end(), a) != switches.end()) {
      out.flags.emplace_back(a, "");
    } else if (std::find(valued.begin(), valued.end(), a) != valued.end()) {
      if (i + 1 >= args.size()) user_error("option ", a, " needs a value");
      out.flags.emplace_back(a, args[++i]);
    } else {
      user_error("unknown option '", a, "'");
    }
  }
  return out;
}

}  // namespace kriek::tools
