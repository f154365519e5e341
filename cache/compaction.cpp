// Compaction (fold segments into one) and gc (keep the recently used roots' closures within a size).
#include "cache/compaction.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <unordered_set>

#include "cache/segment_writer.h"
#include "spec/stable_hash.h"
#include "cache/table_dir.h"
#include "cache/table_writer.h"
#include "sched/canonical.h"

namespace kriek {
namespace {

/// The segments an automatic compaction folds: the smallest first, each at most 4x the sum of those before
/// it, at least two, and enough that the table ends with at most kMaxSegments / 2 + 1.
std::vector<std::size_t> tiered_choice(const std::vector<std::unique_ptr<Segment>>& segments) {
  std::vector<std::size_t> order(segments.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return segments[a]->file_bytes() < segments[b]->file_bytes(); });
  const std::size_t forced = segments.size() > kMaxSegments / 2 ? segments.size() - kMaxSegments / 2 : 0;
  std::size_t n = std::min<std::size_t>(2, order.size());
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += segments[order[i]]->file_bytes();
  while (n < order.size() && (n < forced || segments[order[n]]->file_bytes() <= 4 * sum)) {
    sum += segments[order[n++]]->file_bytes();
  }
  order.resize(n);
  return order;
}

/// Writes the records of `segments` that `keep` accepts as one new segment, then deletes `segments`' files.
WrittenSegment fold(const std::filesystem::path& path, const Table& table, const std::vector<std::size_t>& which,
                    const std::function<bool(std::uint64_t)>& keep) {
  const auto& segments = table.segments();
  for (std::size_t i : which) {
    if (!(segments[i]->identity() == segments[which[0]]->identity())) {
      throw TableError(TableError::Kind::stale, "cannot compact the DP table " + path.string() + ": its segments " +
                                                    segments[i]->file().filename().string() + " and " +
                                                    segments[which[0]]->file().filename().string() +
                                                    " were built by different krieks or for different targets");
    }
  }
  std::vector<std::unique_ptr<Segment::Cursor>> cursors;
  std::vector<RecordSource*> sources;
  for (std::size_t i : which) {
    cursors.push_back(std::make_unique<Segment::Cursor>(*segments[i]));
    sources.push_back(cursors.back().get());
  }
  std::unique_ptr<SegmentWriter> writer =
      std::make_unique<SegmentWriter>(new_temp_path(path), segments[which[0]]->identity(), kFoldLevel);
  merge_records(sources, path.string(), [&](std::uint64_t hash, std::string_view record) {
    if (keep(hash)) writer->add(hash, record);
  });
  WrittenSegment out;
  out.file = new_segment_path(path);
  out.entries = writer->entries();
  out.bytes = writer->finish(out.file);
  fsync_directory(path);  // the new segment's name is on disk before its inputs' names go
  for (std::size_t i : which) {
    std::error_code ec;
    std::filesystem::remove(segments[i]->file(), ec);
  }
  return out;
}

}  // namespace

CompactSummary compact_table(const std::filesystem::path& path, bool all) {
  CompactSummary summary;
  const CompactionLock lock(path, /*wait=*/all);
  const Table table = Table::open(path);
  summary.segments_before = summary.segments_after = table.segments().size();
  if (!lock.held()) return summary;
  remove_dead_temps(path);
  if (table.segments().size() < 2) return summary;
  std::vector<std::size_t> which(table.segments().size());
  std::iota(which.begin(), which.end(), 0);
  if (!all) which = tiered_choice(table.segments());
  const WrittenSegment written = fold(path, table, which, [](std::uint64_t) { return true; });
  summary.entries = written.entries;
  summary.bytes = written.bytes;
  summary.segments_after = list_segments(path).size();
  return summary;
}

GcSummary gc_table(const std::filesystem::path& path, std::uint64_t max_bytes, const Target& target,
                   const CostModel& model) {
  const CompactionLock lock(path, /*wait=*/true);
  const Table table = Table::open(path, target, model);
  GcSummary summary;
  summary.entries_before = summary.entries_after = table.size();
  summary.bytes_before = summary.bytes_after = table.file_bytes();
  if (table.file_bytes() <= max_bytes || table.segments().empty()) return summary;
  // The budget in uncompressed record bytes: the table's compression ratio applies to what is kept, with a
  // tenth to spare, since what is kept may compress a little worse.
  std::map<std::uint64_t, std::uint64_t> uses = read_root_uses(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> roots(uses.begin(), uses.end());
  std::sort(roots.begin(), roots.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::unordered_set<std::uint64_t> wanted;
  for (const auto& r : roots) wanted.insert(r.first);
  std::vector<Spec> root_specs(roots.size());
  double raw_bytes = 0;
  table.for_each_raw([&](std::uint64_t hash, std::string_view record) {
    raw_bytes += static_cast<double>(record.size());
    if (!wanted.count(hash)) return;
    for (std::size_t i = 0; i < roots.size(); ++i) {
      if (roots[i].first == hash) root_specs[i] = spec_from_bytes(record_spec(record));
    }
  });
  const double budget = 0.9 * static_cast<double>(max_bytes) * raw_bytes / static_cast<double>(table.file_bytes());

  // Keeps `spec` with every Spec its frontier's entries need, or nothing when that would pass the budget or a
  // needed Spec is missing. Sets `full` once the budget is reached.
  std::unordered_set<std::uint64_t> kept;
  double kept_bytes = 0;
  bool full = false;
  const auto keep_closure = [&](const Spec& root) {
    std::unordered_set<std::uint64_t> adding;
    double adding_bytes = 0;
    std::vector<Spec> stack = {canonical_spec(root)};
    while (!stack.empty()) {
      const Spec spec = std::move(stack.back());
      stack.pop_back();
      const std::string key = table_key(spec);
      const std::uint64_t h = stable_hash(key);
      if (kept.count(h) || !adding.insert(h).second) continue;
      const std::optional<std::string> record = table.find_key(key, h);
      if (!record) return;  // a child is gone already: this Spec cannot be kept
      adding_bytes += static_cast<double>(record->size());
      if (kept_bytes + adding_bytes > budget) {
        full = true;
        return;
      }
      for (const FrontierEntry& e : decode_frontier(*record).entries) {
        ExpandResult expanded = expand(e.action, spec, target);
        if (auto* ex = std::get_if<Expansion>(&expanded)) {
          for (Spec& c : ex->children) stack.push_back(canonical_spec(c));
        }
      }
    }
    kept.insert(adding.begin(), adding.end());
    kept_bytes += adding_bytes;
  };

  // Roots by their last use, newest first; then every other Spec, newest segment first.
  for (std::size_t i = 0; i < roots.size() && !full; ++i) {
    if (!root_specs[i].operands.empty()) keep_closure(root_specs[i]);
  }
  for (auto s = table.segments().rbegin(); s != table.segments().rend() && !full; ++s) {
    Segment::Cursor cursor(**s);
    while (!full && cursor.next()) {
      if (!kept.count(cursor.hash())) keep_closure(spec_from_bytes(record_spec(cursor.record())));
    }
  }

  std::vector<std::size_t> all(table.segments().size());
  std::iota(all.begin(), all.end(), 0);
  const WrittenSegment written = fold(path, table, all, [&](std::uint64_t h) { return kept.count(h) > 0; });
  for (auto it = uses.begin(); it != uses.end();) it = kept.count(it->first) ? std::next(it) : uses.erase(it);
  write_root_uses(path, uses);
  summary.entries_after = written.entries;
  summary.bytes_after = written.bytes;
  return summary;
}

std::uint64_t default_table_max_bytes() {
  if (const char* v = std::getenv("KRIEK_TABLE_MAX_SIZE"); v && *v) return std::strtoull(v, nullptr, 10);
  return std::uint64_t{1} << 30;
}

}  // namespace kriek
