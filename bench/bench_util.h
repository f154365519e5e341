// What the benchmarks share besides their entry point (guarded_main.h): the median of repeated timings, a
// flag's list value split at a separator, and the machine's load average to print beside the figures (this VM's
// timings move 10-30% with its load, so every table says what the load was).
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

/// The middle value of `v` (the upper of the two middle ones for an even count), 0 for none.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// `text` cut at each `separator` ("a,b" -> {"a", "b"}).
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);) out.push_back(item);
  return out;
}

/// /proc/loadavg as it reads (the 1, 5 and 15-minute load averages, runnable/all tasks, last pid).
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace bench
