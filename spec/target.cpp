// Targets: level lookups, the fingerprint, named targets, and detection of the host with CPUID (the ISA from
// the feature leaves and the OS's saved register state; L1d and L2 from the deterministic cache leaves, since this
// VM has no /sys/devices/system/cpu/cpu0/cache and its legacy L3 leaf is wrong).
#include <cpuid.h>

#include <iomanip>
#include <ostream>
#include <sstream>

#include "spec/error.h"
#include "spec/stable_hash.h"
#include "spec/target.h"

namespace kriek {

bool Target::has_level(Level l) const {
  for (const auto& info : levels) {
    if (info.level == l) return true;
  }
  return false;
}

const LevelInfo& Target::level(Level l) const { return levels.at(static_cast<std::size_t>(level_index(l))); }

std::uint32_t Target::vector_elements(Dtype d) const {
  return static_cast<std::uint32_t>(vector_bytes / static_cast<std::int32_t>(dtype_bytes(d)));
}

int Target::level_index(Level l) const {
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].level == l) return static_cast<int>(i);
  }
  KRIEK_ASSERT(false, "target ", name, " has no level ", level_name(l));
  return -1;
}

std::uint64_t Target::fingerprint() const {
  StableHasher h;
  h.add(name).add(static_cast<std::uint64_t>(isa));
  for (const auto& l : levels) {
    h.add(static_cast<std::uint64_t>(l.level)).add(static_cast<std::uint64_t>(l.capacity));
    h.add(static_cast<std::uint64_t>(l.line_bytes)).add(l.addressed).add(static_cast<std::uint64_t>(l.ways));
  }
  h.add(static_cast<std::uint64_t>(vector_bytes)).add(static_cast<std::uint64_t>(vector_registers));
  h.add(static_cast<std::uint64_t>(scalar_registers));
  return h.value();
}

Target make_target(Isa isa, std::int64_t l1_bytes, std::int64_t l2_bytes, std::int32_t l1_ways,
                   std::int32_t l2_ways) {
  Target t;
  t.name = std::string(isa_name(isa));
  t.isa = isa;
  t.vector_bytes = isa == Isa::avx512 ? 64 : isa == Isa::avx2 ? 32 : 0;
  t.vector_registers = isa == Isa::avx512 ? 32 : isa == Isa::avx2 ? 16 : 0;
  t.levels.push_back({Level::GL, 0, 64, true});
  t.levels.push_back({Level::L2, l2_bytes, 64, false, l2_ways});
  t.levels.push_back({Level::L1, l1_bytes, 64, false, l1_ways});
  if (isa != Isa::scalar) t.levels.push_back({Level::VRF, t.vector_registers * t.vector_bytes, t.vector_bytes, true});
  t.levels.push_back({Level::RF, 64, 4, true});
  return t;
}

Target named_target(std::string_view name) {
  if (name == "host") return host_target();
  if (name == "avx512") return make_target(Isa::avx512, 48 * 1024, 1024 * 1024);
  if (name == "avx2") return make_target(Isa::avx2, 48 * 1024, 1024 * 1024);
  if (name == "scalar") return make_target(Isa::scalar, 48 * 1024, 1024 * 1024);
  user_error("unknown target '", name, "' (expected host, avx512, avx2 or scalar)");
}

namespace {

struct CacheSizes {
  std::int64_t l1 = 0, l2 = 0, l3 = 0;
  std::int32_t l1_ways = 0, l2_ways = 0;
};

/// Sizes and associativities of the level-1 data and level-2 caches from a deterministic cache-parameters leaf
/// (4 on Intel, 0x8000001D on AMD): ways x partitions x line size x sets per subleaf.
void read_caches(unsigned leaf, CacheSizes& out) {
  for (unsigned sub = 0; sub < 16; ++sub) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(leaf, sub, &a, &b, &c, &d)) return;
    const unsigned type = a & 0x1f;
    if (type == 0) return;
    const unsigned level = (a >> 5) & 0x7;
    const std::int32_t ways = static_cast<std::int32_t>((b >> 22) + 1);
    const std::int64_t size = std::int64_t(ways) * ((b >> 12 & 0x3ff) + 1) * ((b & 0xfff) + 1) * (c + 1);
    if (level == 1 && (type == 1 || type == 3)) out.l1 = size, out.l1_ways = ways;
    if (level == 2 && (type == 2 || type == 3)) out.l2 = size, out.l2_ways = ways;
    if (level == 3) out.l3 = size;
  }
}

Target detect_host() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  Isa isa = Isa::scalar;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    const bool avx512f = b & (1u << 16), avx2 = b & (1u << 5);
    unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
    __get_cpuid(1, &a1, &b1, &c1, &d1);
    const bool osxsave = c1 & (1u << 27), fma = c1 & (1u << 12);
    std::uint64_t xcr0 = 0;
    if (osxsave) {
      unsigned lo = 0, hi = 0;
      __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      xcr0 = (std::uint64_t(hi) << 32) | lo;
    }
    const bool ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
    if (avx512f && fma && zmm) isa = Isa::avx512;
    else if (avx2 && fma && ymm) isa = Isa::avx2;
  }
  CacheSizes caches;
  unsigned max = __get_cpuid_max(0, nullptr);
  if (max >= 4) read_caches(4, caches);
  if ((caches.l1 == 0 || caches.l2 == 0) && __get_cpuid_max(0x80000000, nullptr) >= 0x8000001D) read_caches(0x8000001D, caches);
  // Implausible or missing answers fall back to common sizes.
  if (caches.l1 < 8 * 1024 || caches.l1 > 1024 * 1024) caches.l1 = 32 * 1024, caches.l1_ways = 8;
  if (caches.l2 < 64 * 1024 || caches.l2 > 64 * 1024 * 1024) caches.l2 = 1024 * 1024, caches.l2_ways = 16;
  if (caches.l1_ways < 2 || caches.l1_ways > 64) caches.l1_ways = 8;
  if (caches.l2_ways < 2 || caches.l2_ways > 64) caches.l2_ways = 16;
  if (caches.l3 > 256ll * 1024 * 1024) caches.l3 = 0;  // this VM reports hundreds of MiB
  Target t = make_target(isa, caches.l1, caches.l2, caches.l1_ways, caches.l2_ways);
  t.name = "host";
  t.l3_bytes = caches.l3;
  return t;
}

std::string human(std::int64_t bytes) {
  if (bytes == 0) return "unbounded";
  std::ostringstream out;
  if (bytes % (1024 * 1024) == 0) out << bytes / (1024 * 1024) << " MiB";
  else if (bytes % 1024 == 0) out << bytes / 1024 << " KiB";
  else out << bytes << " B";
  return out.str();
}

}  // namespace

const Target& host_target() {
  static const Target host = detect_host();
  return host;
}

std::ostream& operator<<(std::ostream& out, const Target& t) {
  out << "target " << t.name << "\nisa " << isa_name(t.isa) << "\n";
  if (t.vector_bytes) {
    out << "vector registers " << t.vector_registers << " x " << t.vector_bytes << " bytes (" << t.vector_elements(Dtype::f32)
        << " f32 each)\n";
  }
  out << "levels (slowest first):\n";
  for (const auto& l : t.levels) {
    out << "  " << std::left << std::setw(4) << level_name(l.level) << std::right << std::setw(10) << human(l.capacity);
    if (l.capacity) out << " (" << l.capacity << " bytes)";
    out << ", " << (is_register_level(l.level) ? "register " : "line ") << l.line_bytes << " bytes, "
        << (l.addressed ? "addressed" : "cache: data keeps its address");
    if (l.ways) out << ", " << l.ways << "-way";
    out << "\n";
  }
  if (t.l3_bytes) out << "L3 " << human(t.l3_bytes) << " (informational)\n";
  out << "fingerprint " << std::hex << t.fingerprint() << std::dec << "\n";
  return out;
}

}  // namespace kriek
