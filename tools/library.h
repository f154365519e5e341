// `kriek library`: builds a kernel library from a list of Specs: every kernel synthesized through one DP table,
// made into an object by a backend (LLVM, or C and the system compiler), verified against the reference and
// timed, then installed atomically as a header, shared and static libraries, CMake and pkg-config files and a
// manifest. Unchanged kernels (same code and flags) reuse the previous build's objects and measurements, so a
// rebuild recompiles only what changed.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "codegen/backend.h"
#include "impl/node.h"
#include "impl/cost.h"
#include "tools/command.h"
#include "tools/library_list.h"

namespace kriek::tools {

struct LibraryOptions {
  std::string name;              ///< the library's name: libNAME.so, NAME.h, find_package(NAME)
  std::filesystem::path out;     ///< the directory written (replaced atomically)
  std::string list_file;         ///< for messages and the manifest
  bool keep_going = false;       ///< skip (and report) kernels that fail instead of stopping
  codegen::Backend backend = codegen::kDefaultBackend;  ///< what makes the objects
  double time_budget = 0.2;      ///< seconds of timing per new kernel
  /// Tune each kernel over its this many cheapest distinct candidates (tools/tuning.h) unless the table's
  /// directory holds a record already; 0: the DP's pick (or an earlier record).
  std::size_t tune = 0;
  /// Objects and measurements other processes built for this build (mpirun's ranks: prebuild_kernel), looked
  /// up after the previous build's: <hash>.o and <hash>.result. Empty: none.
  std::filesystem::path prebuilt;
};

/// A kernel's code as a backend makes its object from it.
struct KernelCode {
  codegen::Backend backend = codegen::kDefaultBackend;
  ImplPtr impl;
  std::string text;  ///< the C file, or the LLVM module before optimization: installed under src/
  std::vector<std::string> parameters;  ///< the entry point's, one per operand (inputs, then the output)
  std::int64_t workspace_bytes = 0;     ///< per calling thread, allocated on its first call
  bool parallel = false;                ///< its parallel loops run on OpenMP threads (link with -fopenmp)
};

/// What a library's kernels need linked besides their objects.
struct LibraryLinks {
  bool openmp = false;   ///< C kernels with parallel loops: the OpenMP runtime
  bool runtime = false;  ///< LLVM kernels with parallel loops: kriek's runtime (its object is in the library) on TBB
};

/// One kernel as it goes into the library.
struct LibraryKernel {
  LibraryEntry entry;
  KernelCode code;
  Cost predicted_cost = 0;
  std::string source_hash;  ///< of the code, compiler and flags: the key of the object cache
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
/// --table, --no-table). Progress goes to stderr (a line per kernel, and a live progress line on a terminal).
/// UserError for a failing kernel (naming its list line) unless keep_going; nothing in `options.out` changes then.
LibraryReport build_library(const std::vector<LibraryEntry>& entries, const Args& args,
                            const LibraryOptions& options);

/// Makes the object of `entry`'s kernel (synthesized through the table in `args`), verifies and times it, and
/// leaves <hash>.o and <hash>.result in `dir` for build_library (options.prebuilt) to take: how mpirun's ranks
/// share the building. Nothing when the previous build or `dir` has it already; a kernel that fails leaves
/// nothing (the build makes it again and reports why). Writes are atomic, so ranks may share `dir`.
void prebuild_kernel(const LibraryEntry& entry, const Args& args, const LibraryOptions& options,
                     const std::filesystem::path& dir);

// --- The installed files' text (library_files.cpp).

std::string library_header(const LibraryOptions& options, const std::vector<LibraryKernel>& kernels,
                           const Target& target);
std::string library_cmake_config(const std::string& name, LibraryLinks links);
std::string library_cmake_version(const std::string& version);
std::string library_pkg_config(const std::string& name, const std::string& version, LibraryLinks links);
std::string library_manifest(const LibraryOptions& options, const std::vector<LibraryKernel>& kernels,
                             const Target& target, const CostModel& model, const std::string& table);

}  // namespace kriek::tools
