// Argument reading shared by the subcommands.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

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

int positive_flag(const Args& args, std::string_view flag, int fallback) {
  const std::string* v = args.get(flag);
  if (!v) return fallback;
  if (v->empty() || v->size() > 6 || v->find_first_not_of("0123456789") != std::string::npos || std::stoi(*v) < 1) {
    user_error(flag, " takes a positive number, got '", *v, "'");
  }
  return std::stoi(*v);
}

std::uint64_t size_flag(const Args& args, std::string_view flag, std::uint64_t fallback) {
  const std::string* v = args.get(flag);
  if (!v) return fallback;
  std::size_t digits = 0;
  while (digits < v->size() && std::isdigit(static_cast<unsigned char>((*v)[digits]))) ++digits;
  const std::string unit = v->substr(digits);
  const std::uint64_t scale = unit.empty() ? 1 : unit == "K" ? 1024 : unit == "M" ? 1024 * 1024
                              : unit == "G" ? std::uint64_t{1} << 30 : 0;
  if (digits == 0 || digits > 12 || scale == 0) user_error(flag, " '", *v, "' is not a byte count (e.g. 500M, 2G)");
  return std::stoull(v->substr(0, digits)) * scale;
}

MemoryUse command_limits(const Args& args, const Target& target) {
  const MemoryUse limits = default_limits(target);
  const std::string* m = args.get("--memory");
  if (!m) return limits;
  const MemoryUse parsed = parse_memory_limits(*m, limits);
  // Said once per process: `kriek library` asks for the limits once per kernel.
  static bool noted = false;
  if (noted) return parsed;
  for (Level l : kAllLevels) {
    const std::int64_t smallest = kSmallestClass[static_cast<std::size_t>(l)];
    if (parsed[l] <= 0 || parsed[l] >= smallest) continue;
    std::cerr << "kriek: note: --memory " << level_name(l) << "=" << parsed[l] << " is below " << level_name(l)
              << "'s smallest memory class (" << smallest << " bytes), within which the search keeps only the "
              << "cheapest plan: the pick may cost more than one this limit allows\n";
    noted = true;
  }
  return parsed;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    if (!out) user_error("cannot write '", path, "': ", std::strerror(errno));
    out << text;
    if (!out.flush()) {
      std::remove(temp.c_str());
      user_error("cannot write '", path, "': ", std::strerror(errno));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    user_error("cannot write '", path, "': ", std::strerror(err));
  }
}

bool is_c_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}


}  // namespace kriek::tools
