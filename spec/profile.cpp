// Target profiles: the measurement keys, printing, parsing with file:line errors, fingerprints (see profile.h).
#include "spec/profile.h"

#include <charconv>
#include <sstream>

#include "spec/error.h"
#include "spec/stable_hash.h"
#include "spec/user_file.h"

namespace kriek {
namespace {

/// The memory levels a profile measures (the target's L3 and main memory included).
constexpr std::string_view kMemoryLevels[] = {"L1", "L2", "L3", "DRAM"};

std::string number_text(double v) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, r.ptr);
}

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << std::hex << v;
  return out.str();
}

/// Splits a line into words (spaces and tabs), dropping a "#" comment.
std::vector<std::string_view> words(std::string_view line) {
  line = line.substr(0, line.find('#'));
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

}  // namespace

std::vector<int> profile_widths(Isa isa) {
  switch (isa) {
    case Isa::scalar: return {32};
    case Isa::avx2: return {32, 128, 256};
    case Isa::avx512: return {32, 128, 256, 512};
  }
  KRIEK_ASSERT(false, "unknown ISA");
  return {};
}

std::vector<ProfileKey> profile_keys(Isa isa) {
  std::vector<ProfileKey> keys = {{"clock-ghz", "GHz", "core clock (a chain of dependent integer adds)"}};
  for (int w : profile_widths(isa)) {
    const std::string bits = std::to_string(w) + "b";
    keys.push_back({"fma-per-cycle." + bits, "per cycle", "independent " + bits + " FMAs"});
    keys.push_back({"fma-latency." + bits, "cycles", "one step of a chain of dependent " + bits + " FMAs"});
  }
  keys.push_back({"loads-per-cycle", "per cycle", "widest vector loads from L1"});
  keys.push_back({"stores-per-cycle", "per cycle", "widest vector stores to L1"});
  keys.push_back({"broadcasts-per-cycle", "per cycle", "one float from L1 into every lane"});
  if (isa == Isa::avx512) {
    keys.push_back({"broadcast-operands-per-cycle", "per cycle",
                    "one float from L1 into every lane as an instruction's memory operand ({1to16})"});
  }
  keys.push_back({"vector-ops-per-cycle", "per cycle", "independent widest vector adds"});
  for (std::string_view level : kMemoryLevels) {
    keys.push_back({"read-bandwidth." + std::string(level), "bytes per cycle",
                    "streaming reads of a buffer that fits " + std::string(level)});
  }
  for (std::string_view level : kMemoryLevels) {
    keys.push_back({"latency." + std::string(level), "cycles",
                    "a load that depends on the last, random lines of a buffer that fits " + std::string(level)});
  }
  keys.push_back({"pack-contiguous", "bytes per cycle", "copying one contiguous run within L2"});
  keys.push_back({"pack-strided", "bytes per cycle", "copying 64-byte rows of a matrix in L2 into a panel"});
  keys.push_back({"parallel-launch", "cycles", "a parallel loop on every core beyond its share of the work (median)"});
  keys.push_back({"cross-core-latency", "cycles",
                  "a load of a line another core just wrote that waits for the last, beyond one of a line it wrote "
                  "(median; 0 on one CPU)", true});
  keys.push_back({"cross-core-stream", "cycles",
                  "independent loads of lines another core just wrote, beyond of lines it wrote, per line (median; "
                  "0 on one CPU)", true});
  return keys;
}

double TargetProfile::value(std::string_view key) const {
  for (const auto& [k, v] : values) {
    if (k == key) return v;
  }
  KRIEK_ASSERT(false, "the profile has no measurement '", key, "'");
  return 0;
}

std::uint64_t TargetProfile::fingerprint() const {
  StableHasher h;
  h.add(std::uint64_t{kFormatVersion}).add(target).add(static_cast<std::uint64_t>(isa)).add(target_fingerprint);
  for (const auto& [k, v] : values) h.add(k).add(number_text(v));
  return h.value();
}

std::string print_profile(const TargetProfile& p) {
  std::ostringstream out;
  out << "# kriek target profile, measured by kriek calibrate; the cost model reads it (README: kriek calibrate)\n"
      << "kriek-profile " << TargetProfile::kFormatVersion << "\n"
      << "target " << p.target << "\nisa " << isa_name(p.isa) << "\ntarget-fingerprint " << hex(p.target_fingerprint)
      << "\n";
  if (!p.measured.empty()) out << "measured " << p.measured << "\n";
  const std::vector<ProfileKey> keys = profile_keys(p.isa);
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    std::string line = p.values[i].first + " " + number_text(p.values[i].second);
    if (i < keys.size() && keys[i].key == p.values[i].first) {
      line.resize(std::max<std::size_t>(line.size() + 1, 32), ' ');
      line += "# " + std::string(keys[i].unit) + ": " + keys[i].what;
    }
    out << line << "\n";
  }
  return out.str();
}

TargetProfile parse_profile(std::string_view text, const std::string& file) {
  TargetProfile p;
  p.source = file;
  int line_number = 0;
  bool versioned = false, have_isa = false, have_fingerprint = false;
  std::vector<ProfileKey> keys;
  auto fail = [&](const auto&... what) { user_error(file, ":", line_number, ": ", what...); };
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    const std::vector<std::string_view> w = words(line);
    if (w.empty()) continue;
    if (!versioned) {
      if (w[0] != "kriek-profile" || w.size() != 2) {
        fail("not a kriek target profile (expected 'kriek-profile ", TargetProfile::kFormatVersion, "')");
      }
      if (w[1] != std::to_string(TargetProfile::kFormatVersion)) {
        fail("profile format version ", w[1], ", this kriek reads version ", TargetProfile::kFormatVersion,
             " (run kriek calibrate again)");
      }
      versioned = true;
      continue;
    }
    if (w[0] == "measured") {
      p.measured = std::string(line.substr(line.find("measured") + 9));
      continue;
    }
    if (w.size() != 2) fail("expected 'KEY VALUE', got '", line, "'");
    const std::string key(w[0]);
    if (key == "target") {
      p.target = std::string(w[1]);
    } else if (key == "isa") {
      if (w[1] == "scalar") p.isa = Isa::scalar;
      else if (w[1] == "avx2") p.isa = Isa::avx2;
      else if (w[1] == "avx512") p.isa = Isa::avx512;
      else fail("unknown isa '", w[1], "' (expected scalar, avx2 or avx512)");
      have_isa = true;
      keys = profile_keys(p.isa);
    } else if (key == "target-fingerprint") {
      const auto r = std::from_chars(w[1].data(), w[1].data() + w[1].size(), p.target_fingerprint, 16);
      if (r.ec != std::errc{} || r.ptr != w[1].data() + w[1].size()) fail("bad target-fingerprint '", w[1], "'");
      have_fingerprint = true;
    } else {
      if (!have_isa) fail("the isa line must come before the measurements");
      const ProfileKey* known = nullptr;
      for (const ProfileKey& k : keys) known = k.key == key ? &k : known;
      if (!known) fail("unknown measurement '", key, "' for isa ", isa_name(p.isa));
      for (const auto& [k, v] : p.values) {
        if (k == key) fail("measurement '", key, "' given twice");
      }
      double v = 0;
      const auto r = std::from_chars(w[1].data(), w[1].data() + w[1].size(), v);
      if (r.ec != std::errc{} || r.ptr != w[1].data() + w[1].size() || !(v > 0 || (v == 0 && known->may_be_zero)) ||
          v > 1e12) {
        fail("measurement '", key, "' must be a ", known->may_be_zero ? "non-negative" : "positive", " number, got '",
             w[1], "'");
      }
      p.values.emplace_back(key, v);
    }
  }
  if (!versioned) {
    user_error(file, ": empty, not a kriek target profile (expected 'kriek-profile ", TargetProfile::kFormatVersion,
               "')");
  }
  if (p.target.empty() || !have_isa || !have_fingerprint) {
    user_error(file, ": the header needs target, isa and target-fingerprint lines");
  }
  // In profile_keys order, every key present.
  std::vector<std::pair<std::string, double>> ordered;
  for (const ProfileKey& k : keys) {
    bool found = false;
    for (const auto& kv : p.values) {
      if (kv.first != k.key) continue;
      ordered.push_back(kv);
      found = true;
    }
    if (!found) user_error(file, ": measurement '", k.key, "' is missing");
  }
  p.values = std::move(ordered);
  return p;
}

std::optional<std::uint32_t> profile_format_version(std::string_view text) {
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::vector<std::string_view> w = words(text.substr(at, end - at));
    at = end + 1;
    if (w.empty()) continue;
    std::uint32_t version = 0;
    if (w.size() != 2 || w[0] != "kriek-profile") return std::nullopt;
    const auto r = std::from_chars(w[1].data(), w[1].data() + w[1].size(), version);
    if (r.ec != std::errc{} || r.ptr != w[1].data() + w[1].size()) return std::nullopt;
    return version;
  }
  return std::nullopt;
}

TargetProfile read_profile(const std::filesystem::path& path) {
  return parse_profile(read_user_file(path, "the target profile"), path.string());
}

Target with_profile(Target target, TargetProfile profile) {
  target.profile.reset();
  const std::string from = profile.source.empty() ? "the profile" : "the profile " + profile.source;
  if (profile.target != target.name || profile.target_fingerprint != target.fingerprint()) {
    user_error(from, " was measured for target ", profile.target, " (fingerprint ", hex(profile.target_fingerprint),
               "), not for ", target.name, " (fingerprint ", hex(target.fingerprint()),
               "); run kriek calibrate on this machine");
  }
  target.profile = std::make_shared<const TargetProfile>(std::move(profile));
  return target;
}

}  // namespace kriek
