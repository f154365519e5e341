// Host detection replayed on recorded CPUID dumps of both vendors (test/spec/cpuid/*.txt), the OS cross-check,
// and the dump text format.
#include <catch2/catch.hpp>

#include <sstream>

#include "spec/error.h"
#include "spec/host_detect.h"
#include "spec/user_file.h"

using namespace kriek;
using Catch::Matchers::Contains;

namespace {

CpuidDump fixture(const std::string& name) {
  return parse_cpuid(read_user_file(std::string(KRIEK_SOURCE_DIR) + "/test/spec/cpuid/" + name + ".txt", "the fixture"));
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const auto& n : notes) out += n + "\n";
  return out;
}

}  // namespace

TEST_CASE("cache facts by vendor: Intel leaf 4, AMD 0x8000001D, else AMD's legacy leaves", "[spec][target][cpuid]") {
  struct Expected {
    const char* fixture;
    CpuVendor vendor;
    Isa isa;
    const char* cache_source;
    std::int64_t l1d_bytes, l1d_ways, l2_bytes, l2_ways;
  };
  const Expected cases[] = {
      // Intel: caches from leaf 4, AVX-512 from leaf 7 and XCR0.
      {"intel_xeon_spr", CpuVendor::intel, Isa::avx512, "leaf 4", 48 * 1024, 12, 2 * 1024 * 1024, 16},
      // AMD Zen 5 under KVM: 0x8000001D wins over the hypervisor's leaf 4 (which says 32 KiB 8-way).
      {"amd_zen5_kvm", CpuVendor::amd, Isa::avx512, "leaf 0x8000001d", 48 * 1024, 12, 1024 * 1024, 16},
      // AMD Zen 5 EPYC under KVM, recorded here: leaf 4 empty, AVX-512 and caches from 0x8000001D.
      {"amd_epyc_zen5_kvm", CpuVendor::amd, Isa::avx512, "leaf 0x8000001d", 48 * 1024, 12, 1024 * 1024, 16},
      // AMD Zen 4 EPYC under KVM, recorded here: leaf 4 empty, AVX-512 and caches from 0x8000001D.
      {"amd_epyc_zen4_kvm", CpuVendor::amd, Isa::avx512, "leaf 0x8000001d", 32 * 1024, 8, 1024 * 1024, 8},
      // AMD Zen 3 EPYC under KVM, recorded here: AVX2, caches from 0x8000001D.
      {"amd_epyc_zen3_kvm", CpuVendor::amd, Isa::avx2, "leaf 0x8000001d", 32 * 1024, 8, 512 * 1024, 8},
      // AMD without topology extensions: legacy leaves with the associativity code (L2's code 8 is 16 ways).
      {"amd_legacy_leaves", CpuVendor::amd, Isa::avx2, "leaves 0x80000005/6", 64 * 1024, 2, 512 * 1024, 16},
  };
  for (const Expected& e : cases) {
    INFO("fixture " << e.fixture);
    const CpuFacts f = cpu_facts(fixture(e.fixture));
    CHECK(f.vendor == e.vendor);
    CHECK(f.isa == e.isa);
    CHECK(f.cache_source == e.cache_source);
    CHECK(f.l1d.bytes == e.l1d_bytes);
    CHECK(f.l1d.ways == e.l1d_ways);
    CHECK(f.l2.bytes == e.l2_bytes);
    CHECK(f.l2.ways == e.l2_ways);
  }
}

TEST_CASE("AVX-512 needs the OS to save zmm state, AVX2 needs ymm state", "[spec][target][cpuid]") {
  CpuidDump d = fixture("intel_xeon_spr");
  d.xcr0 = 0x7;  // x87, SSE, AVX: no opmask/zmm state
  CHECK(cpu_facts(d).isa == Isa::avx2);
  d.xcr0 = 0x3;
  CHECK(cpu_facts(d).isa == Isa::scalar);
}

TEST_CASE("the target follows CPUID and notes where the OS disagrees", "[spec][target][cpuid]") {
  const CpuidDump zen5 = fixture("amd_zen5_kvm");
  OsCacheView agree{{48 * 1024, 12}, {1024 * 1024, 16}, "sysfs"};
  const Target t = detect_target(zen5, agree, 4);
  CHECK(t.isa == Isa::avx512);
  CHECK(t.level(Level::L1).capacity == 48 * 1024);
  CHECK(t.level(Level::L1).ways == 12);
  CHECK(t.level(Level::L2).capacity == 1024 * 1024);
  CHECK(t.cores == 4);
  CHECK(t.notes.size() == 1);  // only the vendor line
  CHECK_THAT(joined(t.notes), Contains("AMD CPU, caches from leaf 0x8000001d"));

  OsCacheView disagree{{32 * 1024, 8}, {1024 * 1024, 8}, "sysconf"};
  const Target u = detect_target(zen5, disagree, 2);
  CHECK(u.level(Level::L1).capacity == 48 * 1024);
  CHECK_THAT(joined(u.notes), Contains("L1d: CPUID says 48 KiB 12-way, sysconf says 32 KiB 8-way; using CPUID's"));
  CHECK_THAT(joined(u.notes), Contains("L2: CPUID says 1024 KiB 16-way, sysconf says 1024 KiB 8-way"));
  CHECK(u.fingerprint() != t.fingerprint());  // cores differ
}

TEST_CASE("without plausible CPUID caches the OS's view is used, then defaults", "[spec][target][cpuid]") {
  CpuidDump d = fixture("amd_legacy_leaves");
  d.leaves.erase({0x80000005u, 0});
  const Target t = detect_target(d, OsCacheView{{48 * 1024, 12}, {2048 * 1024, 16}, "sysfs"}, 1);
  CHECK(t.level(Level::L1).capacity == 48 * 1024);
  CHECK(t.level(Level::L2).capacity == 2048 * 1024);
  CHECK_THAT(joined(t.notes), Contains("L1d: CPUID gives no plausible size; using 48 KiB 12-way from sysfs"));
  const Target u = detect_target(d, OsCacheView{}, 1);
  CHECK(u.level(Level::L1).capacity == 32 * 1024);
  CHECK_THAT(joined(u.notes), Contains("from defaults"));
}

TEST_CASE("the host's detection agrees with the OS where the OS answers", "[spec][target][cpuid]") {
  const OsCacheView os = read_os_caches();
  const Target& host = host_target();
  CHECK(host.cores == os_cores());
  if (os.l1d.bytes > 0) CHECK(host.level(Level::L1).capacity == os.l1d.bytes);
  if (os.l2.bytes > 0) CHECK(host.level(Level::L2).capacity == os.l2.bytes);
}

TEST_CASE("CPUID dumps print and parse back, bad lines are named", "[spec][target][cpuid]") {
  const CpuidDump d = fixture("amd_zen5_kvm");
  std::ostringstream text;
  print_cpuid(text, d);
  const CpuidDump back = parse_cpuid(text.str());
  CHECK(back.leaves == d.leaves);
  CHECK(back.xcr0 == d.xcr0);
  CHECK_THROWS_WITH(parse_cpuid("00000000 0 1 2 3\n"), Contains("line 1") && Contains("LEAF SUB EAX EBX ECX EDX"));
  CHECK_THROWS_WITH(parse_cpuid("# c\nxcr0 zz\n"), Contains("line 2") && Contains("xcr0"));
}
