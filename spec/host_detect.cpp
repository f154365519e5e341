// Host detection: CPUID facts, the OS's cache view, plausibility fallbacks and disagreement notes.
#include "spec/host_detect.h"

#include <sched.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace kriek {
namespace {

std::string read_word(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

/// sysfs sizes read "32K", "1024K", "32M".
std::int64_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  std::int64_t n = 0;
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') n = n * 10 + (s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k')) n *= 1024;
  if (i < s.size() && (s[i] == 'M' || s[i] == 'm')) n *= 1024 * 1024;
  return n;
}

bool plausible_l1(const CacheLevel& c) { return c.bytes >= 8 * 1024 && c.bytes <= 1024 * 1024; }
bool plausible_l2(const CacheLevel& c) { return c.bytes >= 64 * 1024 && c.bytes <= 64 * 1024 * 1024; }
bool plausible_ways(std::int32_t w) { return w >= 2 && w <= 64; }

std::string describe(const CacheLevel& c) {
  std::ostringstream out;
  out << c.bytes / 1024 << " KiB";
  if (c.ways) out << " " << c.ways << "-way";
  return out.str();
}

/// Picks CPUID's answer for one cache when plausible (noting a disagreeing OS), else the OS's, else `fallback`.
CacheLevel choose(const char* name, const CacheLevel& cpuid, const CacheLevel& os, const std::string& os_source,
                  bool (*plausible)(const CacheLevel&), CacheLevel fallback, std::vector<std::string>& notes) {
  CacheLevel out = cpuid;
  if (!plausible(cpuid)) {
    out = plausible(os) ? os : fallback;
    notes.push_back(std::string(name) + ": CPUID gives no plausible size; using " + describe(out) + " from " +
                    (plausible(os) ? os_source : std::string("defaults")));
  } else if (os.bytes > 0 && (os.bytes != cpuid.bytes || (os.ways && cpuid.ways && os.ways != cpuid.ways))) {
    notes.push_back(std::string(name) + ": CPUID says " + describe(cpuid) + ", " + os_source + " says " +
                    describe(os) + "; using CPUID's");
  }
  if (!plausible_ways(out.ways)) out.ways = plausible_ways(os.ways) && os.bytes == out.bytes ? os.ways : fallback.ways;
  return out;
}

}  // namespace

OsCacheView read_os_caches() {
  OsCacheView view;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_word(dir + "level");
    if (level.empty()) break;
    const std::string type = read_word(dir + "type");
    if (type == "Instruction") continue;
    const CacheLevel c{parse_size(read_word(dir + "size")), std::atoi(read_word(dir + "ways_of_associativity").c_str())};
    if (level == "1") view.l1d = c;
    if (level == "2") view.l2 = c;
    view.source = "sysfs";
  }
  if (view.source.empty()) {
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l1 > 0 || l2 > 0) {
      view.l1d = {l1 > 0 ? l1 : 0, static_cast<std::int32_t>(std::max(0L, sysconf(_SC_LEVEL1_DCACHE_ASSOC)))};
      view.l2 = {l2 > 0 ? l2 : 0, static_cast<std::int32_t>(std::max(0L, sysconf(_SC_LEVEL2_CACHE_ASSOC)))};
      view.source = "sysconf";
    }
  }
  return view;
}

std::int32_t os_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<std::int32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

Target detect_target(const CpuidDump& dump, const OsCacheView& os, std::int32_t cores) {
  const CpuFacts facts = cpu_facts(dump);
  std::vector<std::string> notes;
  const CacheLevel l1 = choose("L1d", facts.l1d, os.l1d, os.source, plausible_l1, {32 * 1024, 8}, notes);
  const CacheLevel l2 = choose("L2", facts.l2, os.l2, os.source, plausible_l2, {1024 * 1024, 16}, notes);
  Target t = make_target(facts.isa, l1.bytes, l2.bytes, l1.ways, l2.ways);
  t.name = "host";
  // Some hypervisors report an L3 of hundreds of MiB; it is informational only.
  t.l3_bytes = facts.l3.bytes <= 256ll * 1024 * 1024 ? facts.l3.bytes : 0;
  t.cores = std::max(1, cores);
  t.notes = std::move(notes);
  t.notes.insert(t.notes.begin(), std::string(vendor_name(facts.vendor)) + " CPU, caches from " + facts.cache_source);
  return t;
}

const Target& host_target() {
  static const Target host = detect_target(record_host_cpuid(), read_os_caches(), os_cores());
  return host;
}

}  // namespace kriek
