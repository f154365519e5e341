// Physical memory, and the peak and current resident set of this process (see host_memory.h).
#include "spec/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace kriek {

std::int64_t physical_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    std::int64_t kib = 0;
    if (key == "MemTotal:" && meminfo >> kib) return kib * 1024;
    meminfo.ignore(1 << 20, '\n');
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

std::int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

std::int64_t current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace kriek
