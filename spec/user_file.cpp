// read_user_file: a named file's text, or a one-line UserError.
#include "spec/user_file.h"

#include <fstream>
#include <sstream>

#include "spec/error.h"

namespace kriek {

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
