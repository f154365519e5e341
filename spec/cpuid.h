// CPUID as data: a dump of the leaves host detection reads (recorded live, or parsed from a fixture file), and the
// pure function that derives the ISA and the cache hierarchy from it for Intel and AMD. Keeping detection a
// function of a dump lets tests replay recorded machines of both vendors.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kriek {

enum class Isa : std::uint8_t;

/// The four registers one CPUID query returns.
struct CpuidRegs {
  std::uint32_t a = 0, b = 0, c = 0, d = 0;
  friend bool operator==(const CpuidRegs&, const CpuidRegs&) = default;
};

/// CPUID leaves by (leaf, subleaf), plus XCR0 (the register state the OS saves, from xgetbv).
struct CpuidDump {
  std::map<std::pair<std::uint32_t, std::uint32_t>, CpuidRegs> leaves;
  std::uint64_t xcr0 = 0;

  /// The leaf, or nullopt when it was not recorded (beyond the maximum leaf, or absent from a fixture).
  std::optional<CpuidRegs> get(std::uint32_t leaf, std::uint32_t sub = 0) const;
};

/// Records the leaves detection reads from this machine's CPUID instruction.
CpuidDump record_host_cpuid();
/// Reads a dump in the text form `print_cpuid` writes: lines `LEAF SUB EAX EBX ECX EDX` in hex and one line
/// `xcr0 HEX`; `#` starts a comment. Throws UserError naming the line that does not parse.
CpuidDump parse_cpuid(std::string_view text);
/// Writes the dump as text (the fixture format).
void print_cpuid(std::ostream& out, const CpuidDump& dump);

enum class CpuVendor : std::uint8_t { intel, amd, other };
std::string_view vendor_name(CpuVendor v);

/// One data or unified cache level as detected: bytes and associativity (0 ways: unknown).
struct CacheLevel {
  std::int64_t bytes = 0;
  std::int32_t ways = 0;
};

/// What CPUID says about the machine, and which leaves said it.
struct CpuFacts {
  CpuVendor vendor = CpuVendor::other;
  Isa isa{};
  CacheLevel l1d, l2, l3;
  /// The leaf the caches came from, e.g. "leaf 4", "leaf 0x8000001d", "leaves 0x80000005/6", or "none".
  std::string cache_source;
};

/// Derives the facts from a dump: vendor from leaf 0; the ISA from leaves 1 and 7 and XCR0 (AVX-512F+FMA with
/// zmm state saved, else AVX2+FMA with ymm state, else scalar); caches from leaf 4 on Intel, from 0x8000001D on
/// AMD when the topology extensions are reported, else from 0x80000005/0x80000006 with AMD's associativity
/// encoding. Missing answers leave zero sizes (the caller chooses fallbacks).
CpuFacts cpu_facts(const CpuidDump& dump);

}  // namespace kriek
