// The subcommands of the kriek program: each is one file defining a Command; main.cpp dispatches by name.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "impl/memory.h"
#include "spec/target.h"

namespace kriek::tools {

struct Command {
  std::string_view name;
  /// The command's entry in README.md's command list, verbatim: `kriek NAME --help` (or -h) prints it, and
  /// `kriek --help` prints every entry.
  std::string_view help;
  /// Runs with the arguments after the subcommand's name; returns the exit status.
  int (*run)(const std::vector<std::string>& args);
};

/// Every subcommand, in the order the help lists them.
const std::vector<Command>& commands();

int run_spec(const std::vector<std::string>& args);
int run_target(const std::vector<std::string>& args);
int run_synth(const std::vector<std::string>& args);
int run_emit(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_query(const std::vector<std::string>& args);
int run_table(const std::vector<std::string>& args);
int run_repl_command(const std::vector<std::string>& args);
int run_script(const std::vector<std::string>& args);
int run_library(const std::vector<std::string>& args);
int run_calibrate(const std::vector<std::string>& args);
int run_tune(const std::vector<std::string>& args);

/// Reads `--flag VALUE` pairs and positional arguments; a flag not in `flags` is a UserError naming it.
struct Args {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> flags;
  const std::string* get(std::string_view flag) const;
  bool has(std::string_view flag) const;
};
Args parse_args(const std::vector<std::string>& args, const std::vector<std::string_view>& valued,
                const std::vector<std::string_view>& switches);

/// The value of `flag` as a positive number (at most 6 digits), or `fallback` when absent; a UserError naming the
/// flag and the value otherwise.
int positive_flag(const Args& args, std::string_view flag, int fallback);
/// The value of `flag` as a byte count (digits with an optional K, M or G: powers of 1024), or `fallback` when
/// absent; a UserError naming the flag and the value otherwise.
std::uint64_t size_flag(const Args& args, std::string_view flag, std::uint64_t fallback);

/// The target the command line names (--target, else the host) with its profile: `--profile FILE` (a UserError
/// when it does not apply), none with `--no-profile`, else the default profile when there is one (ignored with a
/// note on stderr when it was measured for other hardware; one that does not parse is a UserError naming the line).
Target command_target(const Args& args);

/// The memory limits an Impl is picked within: `--memory LEVEL=SIZE,...` on top of the default ones
/// (impl/memory.h's default_limits); a UserError naming a bad entry.
MemoryUse command_limits(const Args& args, const Target& target);

/// The per-user DP table of `target` from $XDG_CACHE_HOME, else $HOME (cache/table_files.h).
std::filesystem::path default_table_path(const Target& target);

/// True when `s` is a C identifier (letters, digits, underscores; not starting with a digit): what --name and
/// kernel names must be.
bool is_c_identifier(std::string_view s);

/// Writes `text` to `path` through a temporary file renamed over it, so a failure never leaves half a file;
/// a UserError naming the path when it cannot.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace kriek::tools
