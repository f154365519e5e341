// Reading a file a person named on the command line (a target profile, a library list, a script, a CPUID dump),
// with the one-line errors of error.h when it cannot be read.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kriek {

/// The whole text of a file a person named, e.g. read_user_file(path, "the list"); a UserError naming it ("cannot
/// read the list 'x'", "the list 'x' is a directory") when it cannot be read.
std::string read_user_file(const std::filesystem::path& path, std::string_view what);

}  // namespace kriek
