// A target profile: what `kriek calibrate` measured on one machine (FMA throughput and latency per vector width,
// load, store and broadcast ports, bandwidth and latency of each memory level, packing copies, the start of a
// parallel loop), as a versioned, human-readable text file. The cost model derives its constants from it
// (CostModel::for_target), and its fingerprint joins the Target's, so a table never mixes two calibrations.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/target.h"

namespace kriek {

/// One measurement a profile holds: its key in the file, its unit and what it measures.
struct ProfileKey {
  std::string key;
  std::string_view unit;
  std::string what;
  /// 0 is a measurement (nothing to measure on this machine), not an error.
  bool may_be_zero = false;
};

/// Every measurement a profile of a machine with `isa` holds, in file order: the clock; FMA throughput and
/// latency at each vector width the ISA has (scalar, 128, 256, 512 bits); vector loads, stores, broadcasts (on
/// AVX-512 also as a memory operand) and adds per cycle at the widest width; read bandwidth and load-to-use
/// latency of L1, L2, L3 and DRAM; packing copies (contiguous and strided rows); the fork and join of a parallel
/// loop; reads of lines another core wrote.
std::vector<ProfileKey> profile_keys(Isa isa);

/// The widths in bits profile_keys measures FMAs at for `isa` (32 is scalar).
std::vector<int> profile_widths(Isa isa);

struct TargetProfile {
  /// The first line of a profile file is "kriek-profile <version>"; another version is refused. 3: AVX-512's
  /// broadcast-operands-per-cycle.
  static constexpr std::uint32_t kFormatVersion = 3;

  /// The target measured: its name, ISA and fingerprint without a profile (a profile applies only to it).
  std::string target;
  Isa isa = Isa::scalar;
  std::uint64_t target_fingerprint = 0;
  /// When and how long the calibration ran, informational (not fingerprinted).
  std::string measured;
  /// Where it was read from (empty when made in this process); not fingerprinted.
  std::string source;
  /// Every key of profile_keys(isa), in that order, with its value.
  std::vector<std::pair<std::string, double>> values;

  /// The value of `key`; asserts that the profile has it (parse_profile checks that every key is there).
  double value(std::string_view key) const;
  /// A stable digest of the version, the target's fingerprint and every value.
  std::uint64_t fingerprint() const;
};

/// The profile as text: a comment, the version line, the header, then one "key value  # unit: what" per line.
std::string print_profile(const TargetProfile& profile);
/// Reads what print_profile writes (comments and blank lines anywhere). A UserError "FILE:LINE: ..." for a
/// missing or other version, an unknown or repeated key, a value that is not a positive number, a missing key.
TargetProfile parse_profile(std::string_view text, const std::string& file);
/// The format version a profile's "kriek-profile <version>" line gives, or nullopt when its first line (past
/// comments and blank lines) is no such line.
std::optional<std::uint32_t> profile_format_version(std::string_view text);
/// parse_profile of the file at `path`; a UserError naming it when it cannot be read.
TargetProfile read_profile(const std::filesystem::path& path);

/// `target` with `profile` attached (its fingerprint then covers the profile). A UserError naming the profile's
/// file when it was measured for another target (name or fingerprint).
Target with_profile(Target target, TargetProfile profile);

}  // namespace kriek
