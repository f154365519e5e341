// `kriek spec check TEXT` and `kriek target`: parse, validate and print Specs; describe targets.
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cache/table_files.h"
#include "codegen/vector_isa.h"
#include "spec/error.h"
#include "spec/host_detect.h"
#include "spec/text.h"
#include "spec/user_file.h"
#include "tools/command.h"

namespace kriek::tools {

int run_spec(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"--target"}, {});
  if (args.positional.size() != 2 || args.positional[0] != "check") {
    user_error("usage: kriek spec check TEXT [--target T]");
  }
  const Target target = named_target(args.get("--target") ? *args.get("--target") : "host");
  std::cout << spec_text(parse_spec(args.positional[1], target)) << "\n";
  return 0;
}

int run_target(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"--target", "--profile", "--from-cpuid"}, {"--dump-cpuid", "--no-profile"});
  if (!args.positional.empty()) user_error("kriek target takes no arguments, got '", args.positional[0], "'");
  if (args.has("--dump-cpuid")) {
    print_cpuid(std::cout, record_host_cpuid());
    return 0;
  }
  if (const std::string* file = args.get("--from-cpuid")) {
    // What detection makes of a recorded machine (the OS view is not recorded, so no cross-check).
    std::cout << detect_target(parse_cpuid(read_user_file(*file, "the CPUID dump")), OsCacheView{}, os_cores());
    return 0;
  }
  const Target target = command_target(args);
  std::cout << target;
  try {
    const std::filesystem::path table =
        kriek::default_table_path(target, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
    std::cout << "default DP table " << table.string() << "\n";
  } catch (const UserError&) {
    // Neither cache variable is set: no default table, which is no error for `kriek target`.
  }
  std::cout << "C flags";
  for (const std::string& f : codegen::isa_flags(target)) std::cout << ' ' << f;
  std::cout << "\n";
  return 0;
}

}  // namespace kriek::tools
