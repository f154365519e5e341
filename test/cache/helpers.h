// Helpers shared by the cache tests: the target and cost model the tests build tables for, writing synthetic
// tables (cache/synthetic_table.h), and byte-level surgery on table files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cache/table_writer.h"
#include "cache/synthetic_table.h"
#include "support/temp_dir.h"

namespace kriek::test {

inline const Target& test_target() { return host_target(); }
inline const CostModel& test_model() {
  static const CostModel model = CostModel::for_target(test_target());
  return model;
}

/// Writes `contents` to `path` (the union with what is there) and returns the summary.
inline WriteSummary write_table(const std::filesystem::path& path, const std::vector<SpecFrontier>& contents,
                                bool keep_existing = true) {
  TableWriter w(path, test_target(), test_model());
  for (const auto& c : contents) w.add(c.spec, c.frontier);
  return w.commit(keep_existing);
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace kriek::test
