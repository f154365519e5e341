// `kriek library`: builds a kernel library from a list of Specs: every kernel synthesized through one DP table,
// emitted as C, compiled, verified against the reference and timed, then installed atomically as a header, shared
// and static libraries, CMake and pkg-config files and a manifest. Unchanged kernels (same C source and flags)
// reuse the previous build's objects and measurements, so a rebuild recompiles only what changed.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "codegen/emit_c.h"
#include "impl/cost.h"
#include "tools/command.h"
#include "tools/library_list.h"

namespace kriek::tools {

struct LibraryOptions {
  std::string name;              ///< the library's name: libNAME.so, NAME.h, find_package(NAME)
  std::filesystem::path out;     ///< the directory written (replaced atomically)
  std::string list_file;         ///< for messages and the manifest
  bool keep_going = false;       ///< skip (and report) kernels that fail instead of stopping
  double time_budget = 0.2;      ///< seconds of timing per new kernel
};

/// One kernel as it goes into the library.
struct LibraryKernel {
  LibraryEntry entry;
  codegen::CSource source;
  Cost predicted_cost = 0;
  std::string source_hash;  ///< of the C source, compiler and flags: the key of the object cache
  double max_error = 0, tolerance = 0, gflops = 0;
  bool reused = false;      ///< object and measurements came from the previous build
};

struct LibraryReport {
  std::vector<LibraryKernel> kernels;
  /// Entries that failed (with --keep-going) and why.
  std::vector<std::pair<LibraryEntry, std::string>> failed;
  int compiled = 0;
  double seconds = 0;
};

/// Builds the library of `entries`; synthesis takes the synth flags in `args` (--target, --memory, --threads,
/// --table, --no-table). Progress goes to `progress`. UserError for a failing kernel (naming its list line)
/// unless keep_going; nothing in `options.out` changes then.
LibraryReport build_library(const std::vector<LibraryEntry>& entries, const Args& args, const LibraryOptions& options,
                            std::ostream& progress);

// --- The installed files' text (library_files.cpp).

std::string library_header(const LibraryOptions& options, const std::vector<LibraryKernel>& kernels,
                           const Target& target);
std::string library_cmake_config(const std::string& name, bool openmp);
std::string library_cmake_version(const std::string& version);
std::string library_pkg_config(const std::string& name, const std::string& version, bool openmp);
std::string library_manifest(const LibraryOptions& options, const std::vector<LibraryKernel>& kernels,
                             const Target& target, const CostModel& model, const std::string& table);

}  // namespace kriek::tools
