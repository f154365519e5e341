// Host detection: the target of this machine from CPUID (spec/cpuid.h), cross-checked against what the OS says
// about its caches (sysfs, else glibc's sysconf), with the core count from the CPUs this process may use.
#pragma once

#include <cstdint>
#include <string>

#include "spec/cpuid.h"
#include "spec/target.h"

namespace kriek {

/// The OS's view of the L1 data and L2 caches; zero bytes where it says nothing.
struct OsCacheView {
  CacheLevel l1d, l2;
  /// Where the view came from, e.g. "sysfs" or "sysconf"; empty when neither answered.
  std::string source;
};

/// Reads /sys/devices/system/cpu/cpu0/cache/index*/ (level, type, size, ways_of_associativity), else glibc's
/// sysconf(_SC_LEVEL1_DCACHE_SIZE, ...).
OsCacheView read_os_caches();
/// CPUs this process may run on (sched_getaffinity), at least 1.
std::int32_t os_cores();

/// The host target from a CPUID dump, the OS's view and a core count. CPUID decides; where the OS disagrees on
/// a size or associativity the target carries a note naming both. Implausible or missing CPUID answers fall back
/// to the OS's, then to common sizes (32 KiB 8-way L1d, 1 MiB 16-way L2), with a note.
Target detect_target(const CpuidDump& dump, const OsCacheView& os, std::int32_t cores);

}  // namespace kriek
