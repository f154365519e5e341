// CPUID dumps (recorded, parsed, printed) and the vendor-aware derivation of ISA and caches from them.
#include "spec/cpuid.h"

#include <cpuid.h>

#include <iomanip>
#include <ostream>
#include <sstream>

#include "spec/error.h"
#include "spec/target.h"

namespace kriek {

std::optional<CpuidRegs> CpuidDump::get(std::uint32_t leaf, std::uint32_t sub) const {
  auto it = leaves.find({leaf, sub});
  if (it == leaves.end()) return std::nullopt;
  return it->second;
}

namespace {

constexpr std::uint32_t kExt = 0x80000000u;
constexpr std::uint32_t kAmdCacheLeaf = 0x8000001Du;
/// Subleaves of the deterministic cache leaves worth reading (L1d, L1i, L2, L3 and spares).
constexpr std::uint32_t kCacheSubleaves = 8;

}  // namespace

CpuidDump record_host_cpuid() {
  CpuidDump dump;
  auto query = [&](std::uint32_t leaf, std::uint32_t sub) {
    CpuidRegs r;
    __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
    dump.leaves[{leaf, sub}] = r;
  };
  const std::uint32_t max = __get_cpuid_max(0, nullptr);
  for (std::uint32_t leaf : {0u, 1u, 4u, 7u}) {
    if (leaf > max) continue;
    const std::uint32_t subs = leaf == 4 ? kCacheSubleaves : 1;
    for (std::uint32_t s = 0; s < subs; ++s) query(leaf, s);
  }
  const std::uint32_t ext_max = __get_cpuid_max(kExt, nullptr);
  for (std::uint32_t leaf : {kExt, kExt + 1, kExt + 5, kExt + 6, kAmdCacheLeaf}) {
    if (ext_max < kExt || leaf > ext_max) continue;
    const std::uint32_t subs = leaf == kAmdCacheLeaf ? kCacheSubleaves : 1;
    for (std::uint32_t s = 0; s < subs; ++s) query(leaf, s);
  }
  const auto leaf1 = dump.get(1);
  if (leaf1 && (leaf1->c & (1u << 27))) {  // OSXSAVE: xgetbv is allowed
    std::uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    dump.xcr0 = (std::uint64_t(hi) << 32) | lo;
  }
  return dump;
}

CpuidDump parse_cpuid(std::string_view text) {
  CpuidDump dump;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    words >> std::hex;
    if (first == "xcr0") {
      if (!(words >> dump.xcr0)) user_error("cpuid dump line ", number, ": xcr0 needs a hex value: '", line, "'");
      continue;
    }
    std::uint32_t leaf = 0, sub = 0;
    CpuidRegs r;
    std::istringstream leaf_word(first);
    if (!(leaf_word >> std::hex >> leaf) || !(words >> sub >> r.a >> r.b >> r.c >> r.d)) {
      user_error("cpuid dump line ", number, ": expected 'LEAF SUB EAX EBX ECX EDX' in hex, got '", line, "'");
    }
    dump.leaves[{leaf, sub}] = r;
  }
  return dump;
}

void print_cpuid(std::ostream& out, const CpuidDump& dump) {
  const auto flags = out.flags();
  out << std::hex << std::setfill('0');
  for (const auto& [key, r] : dump.leaves) {
    out << std::setw(8) << key.first << ' ' << key.second << ' ' << std::setw(8) << r.a << ' ' << std::setw(8) << r.b
        << ' ' << std::setw(8) << r.c << ' ' << std::setw(8) << r.d << '\n';
  }
  out << "xcr0 " << std::setw(16) << dump.xcr0 << '\n';
  out.flags(flags);
  out << std::setfill(' ');
}

std::string_view vendor_name(CpuVendor v) {
  switch (v) {
    case CpuVendor::intel: return "Intel";
    case CpuVendor::amd: return "AMD";
    case CpuVendor::other: return "other";
  }
  return "?";
}

namespace {

CpuVendor vendor_of(const CpuidDump& dump) {
  const auto l0 = dump.get(0);
  if (!l0) return CpuVendor::other;
  char id[13] = {};
  for (int i = 0; i < 4; ++i) {
    id[i] = static_cast<char>(l0->b >> (8 * i));
    id[4 + i] = static_cast<char>(l0->d >> (8 * i));
    id[8 + i] = static_cast<char>(l0->c >> (8 * i));
  }
  const std::string_view s(id, 12);
  if (s == "GenuineIntel") return CpuVendor::intel;
  if (s == "AuthenticAMD" || s == "HygonGenuine") return CpuVendor::amd;
  return CpuVendor::other;
}

Isa isa_of(const CpuidDump& dump) {
  const auto l0 = dump.get(0);
  const auto l1 = dump.get(1);
  const auto l7 = dump.get(7);
  if (!l0 || !l1 || !l7 || l0->a < 7) return Isa::scalar;
  const bool fma = l1->c & (1u << 12), osxsave = l1->c & (1u << 27);
  const bool avx2 = l7->b & (1u << 5), avx512f = l7->b & (1u << 16);
  const std::uint64_t xcr0 = osxsave ? dump.xcr0 : 0;
  const bool ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
  if (avx512f && fma && zmm) return Isa::avx512;
  if (avx2 && fma && ymm) return Isa::avx2;
  return Isa::scalar;
}

/// A deterministic cache-parameters leaf (4 on Intel, 0x8000001D on AMD, same encoding): for every subleaf,
/// ways x partitions x line size x sets. Returns false when the leaf reports no data cache at all.
bool read_cache_leaf(const CpuidDump& dump, std::uint32_t leaf, CpuFacts& out) {
  bool any = false;
  for (std::uint32_t sub = 0; sub < kCacheSubleaves; ++sub) {
    const auto r = dump.get(leaf, sub);
    if (!r) break;
    const std::uint32_t type = r->a & 0x1f;  // 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    const std::uint32_t level = (r->a >> 5) & 0x7;
    const auto ways = static_cast<std::int32_t>((r->b >> 22) + 1);
    const std::int64_t bytes = std::int64_t(ways) * ((r->b >> 12 & 0x3ff) + 1) * ((r->b & 0xfff) + 1) * (std::int64_t(r->c) + 1);
    const CacheLevel found{bytes, (r->a & (1u << 9)) ? 0 : ways};  // bit 9: fully associative
    if (type == 2) continue;
    if (level == 1) out.l1d = found, any = true;
    if (level == 2) out.l2 = found, any = true;
    if (level == 3) out.l3 = found;
  }
  return any;
}

/// AMD's 4-bit associativity code of leaf 0x80000006 (L2 and L3) as ways; 0 for disabled, reserved or fully
/// associative.
std::int32_t amd_ways(std::uint32_t code) {
  constexpr std::int32_t table[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
  return table[code & 0xf];
}

/// AMD's legacy leaves: 0x80000005 ECX for L1d (size in KiB, ways as a plain count, 0xff fully associative),
/// 0x80000006 ECX for L2 (size in KiB, ways as a code) and EDX for L3 (size in 512 KiB units).
bool read_amd_legacy(const CpuidDump& dump, CpuFacts& out) {
  const auto l5 = dump.get(kExt + 5), l6 = dump.get(kExt + 6);
  if (!l5 || !l6) return false;
  const std::uint32_t l1_ways = (l5->c >> 16) & 0xff;
  out.l1d = {std::int64_t(l5->c >> 24) * 1024, l1_ways == 0xff ? 0 : static_cast<std::int32_t>(l1_ways)};
  out.l2 = {std::int64_t(l6->c >> 16) * 1024, amd_ways(l6->c >> 12)};
  out.l3 = {std::int64_t(l6->d >> 18) * 512 * 1024, amd_ways(l6->d >> 12)};
  return out.l1d.bytes > 0 && out.l2.bytes > 0;
}

std::uint32_t max_leaf(const CpuidDump& dump, std::uint32_t base) {
  const auto r = dump.get(base);
  return r ? r->a : 0;
}

}  // namespace

CpuFacts cpu_facts(const CpuidDump& dump) {
  CpuFacts f;
  f.vendor = vendor_of(dump);
  f.isa = isa_of(dump);
  f.cache_source = "none";
  switch (f.vendor) {
    case CpuVendor::intel:
    case CpuVendor::other:
      // Leaf 4 is Intel's; other vendors that implement it use the same encoding.
      if (max_leaf(dump, 0) >= 4 && read_cache_leaf(dump, 4, f)) f.cache_source = "leaf 4";
      break;
    case CpuVendor::amd: {
      // AMD leaves leaf 4 reserved (hypervisors fill it with made-up values): 0x8000001D when the topology
      // extensions are there, else the legacy 0x80000005/6.
      const auto ext1 = dump.get(kExt + 1);
      const bool topoext = ext1 && (ext1->c & (1u << 22));
      if (topoext && max_leaf(dump, kExt) >= kAmdCacheLeaf && read_cache_leaf(dump, kAmdCacheLeaf, f)) {
        f.cache_source = "leaf 0x8000001d";
      } else if (max_leaf(dump, kExt) >= kExt + 6 && read_amd_legacy(dump, f)) {
        f.cache_source = "leaves 0x80000005/6";
      }
      break;
    }
  }
  return f;
}

}  // namespace kriek
