// Helpers shared by the cache tests: the target and cost model the tests build tables for, writing synthetic
// tables (cache/synthetic_table.h), listing a table's files, and byte-level surgery on them.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cache/table_dir.h"
#include "cache/table_writer.h"
#include "cache/synthetic_table.h"
#include "support/temp_dir.h"

namespace kriek::test {

using TempDir = kriek::testing::TempDir;

inline const Target& test_target() { return host_target(); }
inline const CostModel& test_model() {
  static const CostModel model = CostModel::for_target(test_target());
  return model;
}

/// Writes `contents` to `path` (a new segment, or the whole table without `keep_existing`) and returns the
/// summary.
inline WriteSummary write_table(const std::filesystem::path& path, const std::vector<SpecFrontier>& contents,
                                bool keep_existing = true) {
  TableWriter w(path, test_target(), test_model());
  for (const auto& c : contents) w.add(c.spec, c.frontier);
  return w.commit(keep_existing);
}

/// Writes `parts` segments of `per_part` distinct random Specs each (seeds from `seed`) to `path`; returns them all.
inline std::vector<SpecFrontier> write_segments(const std::filesystem::path& path, std::uint64_t seed,
                                                std::uint64_t parts, std::uint64_t per_part) {
  std::vector<SpecFrontier> all;
  for (std::uint64_t part = 0; part < parts; ++part) {
    const auto contents = synthetic_contents(seed + part, part * per_part, per_part);
    write_table(path, contents);
    all.insert(all.end(), contents.begin(), contents.end());
  }
  return all;
}

/// The segment files of the table at `path`, oldest first.
inline std::vector<std::filesystem::path> segments(const std::filesystem::path& path) { return list_segments(path); }

/// Temporary files of writers in the table at `path`.
inline std::vector<std::filesystem::path> temp_files(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
    if (is_temp_file(e.path())) out.push_back(e.path());
  }
  return out;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The bytes of the table's only segment from its pages on: equal for equal contents (the header holds the time
/// of writing).
inline std::string segment_body(const std::filesystem::path& path) {
  const std::vector<std::filesystem::path> files = segments(path);
  if (files.size() != 1) return "not one segment";
  const std::string bytes = read_file(files[0]);
  return bytes.substr(Segment::open(files[0], path)->header().pages_offset);
}

}  // namespace kriek::test
