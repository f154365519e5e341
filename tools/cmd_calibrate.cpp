// `kriek calibrate [-o FILE] [--quick]`: measures this machine (tools/calibration.h) and writes its target profile,
// by default where every command looks for it (beside the per-user DP table), so the cost model uses it from then on.
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "spec/error.h"
#include "tools/calibration.h"
#include "tools/command.h"

namespace kriek::tools {

int run_calibrate(const std::vector<std::string>& raw) {
  const Args args = parse_args(raw, {"-o"}, {"--quick"});
  if (!args.positional.empty()) user_error("kriek calibrate takes no arguments, got '", args.positional[0], "'");
  std::filesystem::path path;
  if (const std::string* o = args.get("-o")) {
    path = *o;
  } else {
    const std::optional<std::filesystem::path> p = default_profile_path(host_target());
    if (!p) user_error("neither XDG_CACHE_HOME nor HOME is set, so the profile has no default place; pass -o FILE");
    path = *p;
  }
  CalibrationOptions options;
  options.quick = args.has("--quick");
  options.progress = [](const std::string& key, double value) {
    std::cout << std::left << std::setw(30) << key << " " << value << std::endl;
  };
  std::cout << "calibrating " << host_target().name << " (" << isa_name(host_target().isa) << ")"
            << (options.quick ? ", quick" : "") << "\n";
  const TargetProfile profile = calibrate(host_target(), options);
  // Single-core probes are timed in CPU time and shrug off other processes; the parallel start cannot.
  double load = 0;
  if (getloadavg(&load, 1) == 1 && load > host_target().cores) {
    std::cout << "note: the load average is " << load << " on " << host_target().cores
              << " cores: parallel-launch measured how long another core takes to free up; calibrate on an idle "
                 "machine for the cost of the region itself\n";
  }
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path.string(), print_profile(profile));
  std::cout << "measured " << profile.measured << "\nwrote " << path.string() << " (profile fingerprint " << std::hex
            << profile.fingerprint() << std::dec << ")\n";
  return 0;
}

}  // namespace kriek::tools
