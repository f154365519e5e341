// Target profiles: print/parse round trip, every parse error with its file and line, fingerprints (a profile
// joins the target's; none leaves it as pinned in target_test.cpp), and which targets a profile applies to.
#include <catch2/catch.hpp>

#include "spec/error.h"
#include "spec/profile.h"

using namespace kriek;
using Catch::Matchers::Contains;

namespace {

/// A profile of `target` with every key of its ISA, values 1.5, 2.5, 3.5, ...
TargetProfile sample(const Target& target) {
  TargetProfile p;
  p.target = target.name;
  p.isa = target.isa;
  p.target_fingerprint = target.fingerprint();
  p.measured = "2026-11-23T19:00:00Z in 7 s";
  double v = 1.5;
  for (const ProfileKey& k : profile_keys(target.isa)) p.values.emplace_back(k.key, v++);
  return p;
}

std::string parse_error(const std::string& text) {
  try {
    parse_profile(text, "p.profile");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(parsed)";
}

/// The sample's text with the line starting with `key` replaced by `line` (removed when empty).
std::string edited(const std::string& key, const std::string& line) {
  const std::string text = print_profile(sample(named_target("avx2")));
  const std::size_t at = text.find("\n" + key) + 1;
  const std::size_t end = text.find('\n', at);
  return text.substr(0, at) + line + (line.empty() ? "" : "\n") + text.substr(end + 1);
}

}  // namespace

TEST_CASE("a profile prints and parses back to an equal profile", "[spec][profile]") {
  for (const char* name : {"avx512", "avx2", "scalar"}) {
    const TargetProfile p = sample(named_target(name));
    const std::string text = print_profile(p);
    const TargetProfile back = parse_profile(text, "p.profile");
    CHECK(back.values == p.values);
    CHECK(back.target == p.target);
    CHECK(back.isa == p.isa);
    CHECK(back.target_fingerprint == p.target_fingerprint);
    CHECK(back.measured == p.measured);
    CHECK(back.fingerprint() == p.fingerprint());
    CHECK(print_profile(back) == text);
  }
  // FMA keys per vector width: the scalar ISA has only 32-bit ones, AVX-512 all four.
  CHECK_THAT(print_profile(sample(named_target("avx512"))), Contains("fma-per-cycle.512b"));
  CHECK(print_profile(sample(named_target("avx2"))).find("512b") == std::string::npos);
  CHECK(print_profile(sample(named_target("scalar"))).find("128b") == std::string::npos);
  // Broadcasts as an instruction's memory operand: only AVX-512 has them.
  CHECK_THAT(print_profile(sample(named_target("avx512"))), Contains("\nbroadcast-operands-per-cycle 13.5 "));
  CHECK(print_profile(sample(named_target("avx2"))).find("broadcast-operands") == std::string::npos);
}

TEST_CASE("a profile's format version is read from its first line", "[spec][profile]") {
  CHECK(profile_format_version(print_profile(sample(named_target("avx2")))) == TargetProfile::kFormatVersion);
  CHECK(profile_format_version("# an old one\n\nkriek-profile 2\ntarget host\n") == 2u);
  CHECK(profile_format_version("kriek-profile two\n") == std::nullopt);
  CHECK(profile_format_version("target host\nkriek-profile 3\n") == std::nullopt);
  CHECK(profile_format_version("") == std::nullopt);
}

TEST_CASE("bad profile files are one-line errors naming the file and line", "[spec][profile][errors]") {
  CHECK_THAT(parse_error(""), Contains("p.profile: empty, not a kriek target profile"));
  CHECK_THAT(parse_error("hello 1\n"), Contains("p.profile:1: not a kriek target profile"));
  CHECK_THAT(parse_error("# c\nkriek-profile 7\n"), Contains("p.profile:2: profile format version 7") &&
                                                         Contains("reads version 3"));
  CHECK_THAT(parse_error(edited("clock-ghz", "clock-ghz fast")),
             Contains("p.profile:7: measurement 'clock-ghz' must be a positive number, got 'fast'"));
  CHECK_THAT(parse_error(edited("clock-ghz", "clock-ghz -3")), Contains("must be a positive number, got '-3'"));
  // Zero is a measurement only where there may be nothing to measure (no second CPU).
  CHECK_THAT(parse_error(edited("clock-ghz", "clock-ghz 0")), Contains("must be a positive number, got '0'"));
  CHECK(parse_error(edited("cross-core-stream", "cross-core-stream 0")) == "(parsed)");
  CHECK_THAT(parse_error(edited("cross-core-stream", "cross-core-stream -1")),
             Contains("measurement 'cross-core-stream' must be a non-negative number, got '-1'"));
  CHECK_THAT(parse_error(edited("clock-ghz", "clock-ghz 3 4")), Contains("p.profile:7: expected 'KEY VALUE'"));
  CHECK_THAT(parse_error(edited("clock-ghz", "warp-factor 9")),
             Contains("p.profile:7: unknown measurement 'warp-factor' for isa avx2"));
  CHECK_THAT(parse_error(edited("fma-latency.32b", "clock-ghz 3")), Contains("measurement 'clock-ghz' given twice"));
  CHECK_THAT(parse_error(edited("latency.DRAM", "")), Contains("p.profile: measurement 'latency.DRAM' is missing"));
  CHECK_THAT(parse_error(edited("isa", "isa sse9")), Contains("p.profile:4: unknown isa 'sse9'"));
  CHECK_THAT(parse_error(edited("target-fingerprint", "target-fingerprint xyz")), Contains("bad target-fingerprint 'xyz'"));
  CHECK_THAT(parse_error(edited("target-fingerprint", "")), Contains("the header needs target, isa and target-fingerprint"));
  for (const std::string& e : {parse_error("hello"), parse_error(edited("clock-ghz", "clock-ghz x"))}) {
    CHECK(e.find('\n') == std::string::npos);
  }
}

TEST_CASE("a profile joins the target's fingerprint and applies only to the target it measured", "[spec][profile]") {
  const Target avx2 = named_target("avx2");
  const Target with = with_profile(avx2, sample(avx2));
  REQUIRE(with.profile);
  CHECK(with.fingerprint() != avx2.fingerprint());
  // Without a profile the fingerprint is the pinned one (target_test.cpp).
  CHECK(avx2.fingerprint() == 0x940abc7f3d141336ull);
  // Another value, another fingerprint.
  TargetProfile other = sample(avx2);
  other.values.front().second += 1;
  CHECK(with_profile(avx2, other).fingerprint() != with.fingerprint());
  // The time of measuring and the file it came from are not part of it.
  other = sample(avx2);
  other.measured = "yesterday";
  other.source = "elsewhere.profile";
  CHECK(with_profile(avx2, other).fingerprint() == with.fingerprint());
  // Attaching again replaces the profile, checked against the target without it.
  CHECK(with_profile(with, sample(avx2)).fingerprint() == with.fingerprint());
  TargetProfile foreign = sample(named_target("avx512"));
  foreign.source = "big.profile";
  CHECK_THROWS_WITH(with_profile(avx2, foreign), Contains("the profile big.profile was measured for target avx512") &&
                                                     Contains("not for avx2"));
  TargetProfile moved = sample(avx2);
  moved.target_fingerprint ^= 1;
  CHECK_THROWS_WITH(with_profile(avx2, moved), Contains("run kriek calibrate on this machine"));
}
