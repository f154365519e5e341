// `kriek calibrate`'s measurements: micro-benchmarks compiled for the host like kernels (calibration_probes.cpp),
// timed, and turned into a TargetProfile (spec/profile.h) in cycles and bytes per cycle; and where profiles live.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "codegen/emit_c.h"
#include "spec/profile.h"
#include "tools/command.h"

namespace kriek::tools {

struct CalibrationOptions {
  /// Few, short repetitions and small buffers: a valid profile in about a second, for tests (not for use).
  bool quick = false;
  /// Called with each measurement as it is made (key, value), e.g. to print progress.
  std::function<void(const std::string&, double)> progress;
};

/// Measures every key of profile_keys(target.isa) on this machine; `target` must be the host (without a
/// profile). Takes well under a minute (a few seconds quick).
TargetProfile calibrate(const Target& target, const CalibrationOptions& options);

/// The C source of every probe for a host of `isa` (one library; entry points kc_*).
codegen::CSource calibration_source(Isa isa);

/// The per-user profile of a target, beside its DP table: `$XDG_CACHE_HOME/kriek/<target-name>.profile`, else
/// `$HOME/.cache/kriek/...`; nullopt when neither variable is set.
std::optional<std::filesystem::path> default_profile_path(const Target& target);


}  // namespace kriek::tools
