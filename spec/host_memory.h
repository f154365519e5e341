// The memory of this machine and of this process, beside the host's detection (target.h): the physical memory a
// command checks a Spec's operands against before searching, and the peak resident set the search statistics
// report, and the current one the progress line shows.
#pragma once

#include <cstdint>

namespace kriek {

/// Bytes of physical memory (MemTotal of /proc/meminfo, else sysconf), or 0 when neither says.
std::int64_t physical_memory_bytes();

/// Peak resident set size of this process in bytes.
std::int64_t peak_rss_bytes();
/// Resident set size of this process now, in bytes (0 where /proc is not available).
std::int64_t current_rss_bytes();

}  // namespace kriek
