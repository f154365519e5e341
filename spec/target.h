// Target: the machine model: memory levels from slowest to fastest with capacities and line sizes, the vector
// ISA and its register file. `host_target()` detects this machine (CPUID for ISA and caches); named targets
// ("avx512", "avx2", "scalar") describe a typical machine of that kind.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spec/dtype.h"
#include "spec/level.h"

namespace kriek {

enum class Isa : std::uint8_t { scalar, avx2, avx512 };
struct TargetProfile;
std::string_view isa_name(Isa isa);

struct LevelInfo {
  Level level = Level::GL;
  /// Bytes the level holds; 0 means unbounded (main memory).
  std::int64_t capacity = 0;
  /// Bytes moved at a time: the cache line, or the register size for register levels.
  std::int32_t line_bytes = 64;
  /// Data there has an address of its own (main memory, registers); false for caches, where data keeps the
  /// address it has in the level below unless a move re-lays it out.
  bool addressed = true;
  /// Associativity of a cache level (lines of one set); 0 for levels that are not set-associative caches.
  /// Rows of a strided tile may all fall into the same sets, so a cache keeps at most this many of them.
  std::int32_t ways = 0;
};

struct Target {
  std::string name;
  Isa isa = Isa::scalar;
  /// Ordered from slowest (GL) to fastest; only the levels this target has.
  std::vector<LevelInfo> levels;
  /// Bytes per vector register (64 for AVX-512, 32 for AVX2, 0 for scalar).
  std::int32_t vector_bytes = 0;
  std::int32_t vector_registers = 0;
  std::int32_t scalar_registers = 16;
  /// Last-level cache, informational (not a level the schedules use).
  std::int64_t l3_bytes = 0;
  /// Nominal core clock in GHz, informational (peak estimates).
  double ghz = 0;
  /// Cores a parallel loop may spread over (the host: the CPUs this process may run on).
  std::int32_t cores = 2;
  /// What detection noticed, e.g. CPUID and the OS disagreeing on a cache; informational, not fingerprinted.
  std::vector<std::string> notes;
  /// What `kriek calibrate` measured on this machine (spec/profile.h), or null: the cost model's defaults. When
  /// present, the fingerprint covers it.
  std::shared_ptr<const TargetProfile> profile;

  bool has_level(Level l) const;
  /// The level's description; asserts that the target has it.
  const LevelInfo& level(Level l) const;
  /// Elements of `d` per vector register; 0 for scalar targets.
  std::uint32_t vector_elements(Dtype d) const;
  /// Elements of `d` per row of a packed panel (the blocked layout the search packs inputs into): whole vectors
  /// filling at least one L1 line, so a register tile's row of the panel is one line (16 f32 with AVX2 and
  /// AVX-512); 0 for scalar targets.
  std::uint32_t panel_elements(Dtype d) const;
  /// Position of `l` in `levels` (0 = slowest); asserts that the target has it.
  int level_index(Level l) const;
  /// True when `a` is strictly faster (closer to the core) than `b`.
  bool faster(Level a, Level b) const { return level_index(a) > level_index(b); }
  /// A stable 64-bit digest of every parameter above (for tables built for this target), the profile's included
  /// when there is one (without one, the digest is what it was before profiles existed).
  std::uint64_t fingerprint() const;

  friend bool operator==(const Target& a, const Target& b) { return a.fingerprint() == b.fingerprint(); }
};

/// The machine this runs on: ISA and caches from CPUID (see cpu_facts in spec/cpuid.h: leaf 4 on Intel,
/// 0x8000001D or 0x80000005/6 on AMD), cross-checked against the OS's view (sysfs, glibc's sysconf; a
/// disagreement becomes a note), cores from the CPUs this process may run on.
const Target& host_target();
// detect_target (spec/host_detect.h) derives it from a CPUID dump, so tests can replay recorded machines.
/// A target by name: "host", "avx512", "avx2" or "scalar". Throws UserError for other names.
Target named_target(std::string_view name);
/// A typical target of the ISA with the given cache sizes and associativities.
Target make_target(Isa isa, std::int64_t l1_bytes, std::int64_t l2_bytes, std::int32_t l1_ways = 12,
                   std::int32_t l2_ways = 16);

/// Prints the levels, capacities, vector widths and ISA, one fact per line.
std::ostream& operator<<(std::ostream& out, const Target& t);

}  // namespace kriek
