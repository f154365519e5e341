// Targets: host detection on this machine's kind, named targets, stable fingerprints.
#include <catch2/catch.hpp>

#include <functional>
#include <sstream>
#include <vector>

#include "spec/error.h"
#include "spec/target.h"

using namespace kriek;
using Catch::Matchers::Contains;

TEST_CASE("the host is detected with plausible caches and vector registers", "[spec][target]") {
  const Target& host = host_target();
  REQUIRE(host.has_level(Level::L1));
  CHECK(host.level(Level::L1).capacity >= 16 * 1024);
  CHECK(host.level(Level::L1).capacity <= 256 * 1024);
  CHECK(host.level(Level::L2).capacity >= 256 * 1024);
  if (host.isa == Isa::avx512) {
    CHECK(host.vector_registers == 32);
    CHECK(host.vector_bytes == 64);
    CHECK(host.vector_elements(Dtype::f32) == 16);
  }
  std::ostringstream out;
  out << host;
  CHECK_THAT(out.str(), Contains("isa") && Contains("L1"));
  CHECK((out.str().find("VRF") != std::string::npos) == (host.isa != Isa::scalar));
}

TEST_CASE("named targets and their levels, slowest first", "[spec][target]") {
  const Target a = named_target("avx512"), b = named_target("avx2"), s = named_target("scalar");
  CHECK(a.vector_elements(Dtype::f32) == 16);
  CHECK(b.vector_elements(Dtype::f32) == 8);
  // Packed panels are one 64-byte line wide: one vector with AVX-512, two with AVX2, none without vectors.
  CHECK(a.panel_elements(Dtype::f32) == 16);
  CHECK(b.panel_elements(Dtype::f32) == 16);
  CHECK(s.panel_elements(Dtype::f32) == 0);
  CHECK_FALSE(s.has_level(Level::VRF));
  CHECK(a.faster(Level::L1, Level::GL));
  CHECK_FALSE(a.faster(Level::GL, Level::L2));
  CHECK_THROWS_WITH(named_target("avx1024"), Contains("unknown target 'avx1024'") && Contains("avx512"));
}

TEST_CASE("fingerprints are stable and tell targets apart", "[spec][target]") {
  // Pinned: computed once with spec/stable_hash.h (cores included); tables on disk carry them, so they must not
  // drift between builds or runs (named targets are fixed machines).
  CHECK(named_target("avx512").fingerprint() == 0x1fe7d54bed4afccaull);
  CHECK(named_target("avx2").fingerprint() == 0x940abc7f3d141336ull);
  CHECK(named_target("scalar").fingerprint() == 0x6c8dbc20cfdd2a32ull);
  CHECK(named_target("avx512").fingerprint() != named_target("avx2").fingerprint());
  // Every parameter takes part.
  const Target base = make_target(Isa::avx512, 32768, 1 << 20);
  const std::vector<std::function<void(Target&)>> changes = {
      [](Target& t) { t.name = "other"; },
      [](Target& t) { t.isa = Isa::avx2; },
      [](Target& t) { t.levels.pop_back(); },
      [](Target& t) { t.levels[2].capacity = 49152; },
      [](Target& t) { t.levels[2].line_bytes = 128; },
      [](Target& t) { t.levels[2].addressed = true; },
      [](Target& t) { t.levels[2].ways = 8; },
      [](Target& t) { t.levels[1].level = Level::L1; },
      [](Target& t) { t.vector_bytes = 32; },
      [](Target& t) { t.vector_registers = 16; },
      [](Target& t) { t.scalar_registers = 32; },
      [](Target& t) { t.cores = 4; },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    Target t = base;
    changes[i](t);
    INFO("change " << i);
    CHECK(t.fingerprint() != base.fingerprint());
  }
}

TEST_CASE("caches know their associativity, the host's comes from CPUID", "[spec][target]") {
  const Target t = make_target(Isa::avx512, 49152, 1 << 20);
  CHECK(t.level(Level::L1).ways == 12);
  CHECK(t.level(Level::L2).ways == 16);
  CHECK(t.level(Level::GL).ways == 0);
  CHECK(t.level(Level::VRF).ways == 0);
  const Target& host = host_target();
  CHECK(host.level(Level::L1).ways >= 2);
  CHECK(host.level(Level::L2).ways >= 2);
  std::ostringstream out;
  out << t;
  CHECK_THAT(out.str(), Contains("L1      48 KiB (49152 bytes), line 64 bytes, cache: data keeps its address, 12-way"));
}
