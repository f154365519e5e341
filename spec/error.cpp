// Reporting of failed internal assertions, and the reading of files a person names (one-line errors).
#include "spec/error.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace kriek {
namespace detail {

void assert_failed(const char* file, int line, const char* condition, const std::string& message) {
  std::fprintf(stderr, "%s:%d: internal error: assertion `%s` failed: %s\n", file, line, condition,
               message.c_str());
  std::abort();
}

}  // namespace detail

std::string read_user_file(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  // An ifstream opens a directory and reads nothing from it: say so rather than report it empty.
  if (std::filesystem::is_directory(path, ec)) user_error(what, " '", path.string(), "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) user_error("cannot read ", what, " '", path.string(), "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) user_error("cannot read ", what, " '", path.string(), "'");
  return text.str();
}

}  // namespace kriek
