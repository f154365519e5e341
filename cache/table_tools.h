// Whole-table operations: statistics, merging tables built for the same target and cost model, export as JSON
// lines, and saving a search's frontiers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "cache/table_writer.h"
#include "impl/node.h"

namespace kriek {

struct TableStats {
  std::uint64_t entries = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t frontier_entries = 0;
  /// Specs per op kind (op_word, e.g. "matmul", "compose").
  std::map<std::string, std::uint64_t> per_op;
  /// Number of Specs whose frontier has n entries, by n.
  std::map<std::size_t, std::uint64_t> frontier_sizes;
  double bytes_per_entry() const { return entries ? double(file_bytes) / double(entries) : 0.0; }
};

/// Reads every record (verifying every checksum).
TableStats table_stats(const Table& table);
/// Prints the identity and the statistics, one fact per line.
void print_stats(std::ostream& out, const Table& table, const TableStats& stats);

/// Writes the union of `inputs` as one segment replacing every segment of `output` (atomically, under its
/// compaction lock). Every input must have the same target, cost model and vocabulary, and Specs present in
/// several inputs must have equal frontiers; otherwise UserError naming the files. The segment equals the one a
/// search over all the inputs' Specs would write with keep_existing false.
WriteSummary merge_tables(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output);

/// One JSON object per line and Spec: {"spec": text, "entries": [{"action", "cost", "peak": {level: bytes},
/// "children"}]}.
void export_json_lines(const Table& table, std::ostream& out);

/// Adds every frontier `visit_all` passes to its visitor (a search's packed frontier, held, not copied, until the
/// segment is written) to the table at `path` as a
/// new segment (unless `keep_existing` is false: then they replace the table), e.g.
/// `save_table(path, target, model, [&](const auto& v) { synthesizer.for_each_encoded(v); })`; the Specs visited
/// must outlive the call (TableWriter::add), as a synthesizer's memo keys do. `searched`: the
/// table (opened at `path`) the search consulted before solving each of them (TableWriter::missed_in), or nullptr.
using FrontierVisitor = std::function<void(const Spec&, const std::shared_ptr<const PackedFrontier>&)>;
WriteSummary save_table(const std::filesystem::path& path, const Target& target, const CostModel& model,
                        const std::function<void(const FrontierVisitor&)>& visit_all, bool keep_existing = true,
                        const Table* searched = nullptr);

}  // namespace kriek
