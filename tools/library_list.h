// The input of `kriek library`: a text file with one Spec per line in the spec text, optionally named
// (`NAME = SPEC`), `#` comments and blank lines. Each entry keeps its line number for error messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "spec/spec.h"
#include "spec/target.h"

namespace kriek::tools {

struct LibraryEntry {
  int line = 0;            ///< 1-based line in the list file
  std::string symbol;      ///< the C function name (given, or derived from the Spec)
  std::string spec_text;   ///< as written
  Spec spec;
};

/// Parses the list. Errors (a bad Spec, a name that is not a C identifier, a name used twice, an empty list) are
/// UserErrors naming the file and line. Unnamed entries get codegen's default name for their Spec; two unnamed
/// entries with one Spec are one kernel.
std::vector<LibraryEntry> parse_library_list(std::string_view text, const std::string& file, const Target& target);

/// The entries of shard `index` of `count` (every count-th entry, starting at index): what one of `count`
/// independent jobs synthesizes.
std::vector<LibraryEntry> shard_of(const std::vector<LibraryEntry>& entries, std::size_t index, std::size_t count);

}  // namespace kriek::tools
