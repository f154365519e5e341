// The segment-appending writer: collect records, merge them in index order into one new segment, then compact
// when the table has too many segments.
#include "cache/table_writer.h"

#include <algorithm>
#include <cstring>

#include <tbb/parallel_for.h>

#include "cache/compaction.h"
#include "cache/segment_writer.h"
#include "spec/stable_hash.h"
#include "cache/table_dir.h"

namespace kriek {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{8} << 20;

}  // namespace

WrittenSegment write_segment(const std::filesystem::path& table, const TableIdentity& identity,
                             const std::vector<RecordSource*>& sources, bool even_if_empty, int level,
                             std::uint64_t fail_after_bytes) {
  std::unique_ptr<SegmentWriter> writer;
  const auto open = [&] {
    if (!writer) writer = std::make_unique<SegmentWriter>(new_temp_path(table), identity, level, fail_after_bytes);
  };
  merge_records(sources, table.string(), [&](std::uint64_t hash, std::string_view record) {
    open();
    writer->add(hash, record);
  });
  if (even_if_empty) open();
  if (!writer) return {};
  WrittenSegment out;
  out.file = new_segment_path(table);
  out.entries = writer->entries();
  out.bytes = writer->finish(out.file);
  return out;
}

TableWriter::TableWriter(std::filesystem::path path, const Target& target, const CostModel& model)
    : TableWriter(std::move(path), TableIdentity::of(target, model)) {}

TableWriter::TableWriter(std::filesystem::path path, TableIdentity identity)
    : path_(std::move(path)), identity_(std::move(identity)) {}

TableWriter::~TableWriter() = default;

std::string_view TableWriter::keep(std::string_view bytes) {
  if (chunks_.empty() || chunk_used_ + bytes.size() > chunk_capacity_) {
    chunk_capacity_ = std::max(kChunkBytes, bytes.size());
    chunks_.push_back(std::unique_ptr<char[]>(new char[chunk_capacity_]));  // not zeroed: written before read
    chunk_used_ = 0;
  }
  char* at = chunks_.back().get() + chunk_used_;
  std::memcpy(at, bytes.data(), bytes.size());
  chunk_used_ += bytes.size();
  return {at, bytes.size()};
}

void TableWriter::add(const Spec& spec, const Frontier& frontier) {
  const std::string key = table_key(spec);
  scratch_.clear();  // reused: one allocation for every record
  append_record(scratch_, key, frontier);
  records_.emplace_back(stable_hash(key), keep(scratch_));
}

void TableWriter::add(const Spec& spec, std::shared_ptr<const PackedFrontier> frontier) {
  pending_.push_back({&spec, std::move(frontier)});
}

void TableWriter::encode_pending() {
  // A key walks its Spec, scattered over the search's memo: in parallel, kEncodeBlock Specs per task, each block's
  // records into a buffer of its own.
  constexpr std::size_t kEncodeBlock = 1024;
  const std::size_t first = records_.size(), blocks = (pending_.size() + kEncodeBlock - 1) / kEncodeBlock;
  records_.resize(first + pending_.size());
  std::vector<std::unique_ptr<char[]>> buffers(blocks);
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    const std::size_t begin = b * kEncodeBlock, end = std::min(pending_.size(), begin + kEncodeBlock);
    std::vector<std::string> keys(end - begin);
    std::size_t bytes = 0;
    for (std::size_t i = begin; i < end; ++i) {
      keys[i - begin] = table_key(*pending_[i].spec);
      bytes += 10 + keys[i - begin].size() + pending_[i].frontier->bytes().size();
    }
    buffers[b] = std::unique_ptr<char[]>(new char[bytes]);
    std::string record;
    char* at = buffers[b].get();
    for (std::size_t i = begin; i < end; ++i) {
      const std::string& key = keys[i - begin];
      record.clear();
      put_varint(record, key.size());
      record += key;
      record += pending_[i].frontier->bytes();
      std::memcpy(at, record.data(), record.size());
      records_[first + i] = {stable_hash(key), std::string_view(at, record.size())};
      at += record.size();
      pending_[i].frontier.reset();  // a frontier loaded from a spill file goes once encoded
    }
  });
  for (auto& buffer : buffers) chunks_.push_back(std::move(buffer));
  pending_.clear();
}

void TableWriter::add_table(const Table& table) {
  table.check_compatible(identity_);
  tables_.push_back(&table);
}

void TableWriter::missed_in(const Table& table) {
  for (const auto& s : table.segments()) searched_.push_back(s->file().filename());
}

WriteSummary TableWriter::commit(bool keep_existing, std::uint64_t fail_after_bytes) {
  KRIEK_ASSERT(!committed_, "commit of a TableWriter that already committed");
  committed_ = true;
  encode_pending();
  if (!keep_existing && path_kind(path_) == PathKind::legacy_table) remove_table(path_);
  create_table_dir(path_);
  // Replacing the table deletes every segment there is: under the compaction lock, so that no compaction
  // folds them meanwhile. Segments that writers add while we write survive.
  std::unique_ptr<CompactionLock> lock;
  std::vector<std::filesystem::path> replaced;
  std::vector<SortedRecords::Item> items;
  items.reserve(records_.size());
  if (keep_existing) {
    // Specs already in the table are not written again; one whose stored frontier differs is an error. Only the
    // segments not known to miss them (missed_in) can hold them.
    const Table existing = Table::open(path_);
    existing.check_compatible(identity_);
    std::vector<const Segment*> unsearched;
    for (const auto& s : existing.segments()) {
      if (std::find(searched_.begin(), searched_.end(), s->file().filename()) == searched_.end()) {
        unsearched.push_back(s.get());
      }
    }
    for (const auto& [hash, record] : records_) {
      std::optional<std::string> stored;
      for (auto s = unsearched.rbegin(); s != unsearched.rend() && !stored; ++s) {
        stored = (*s)->find(record_spec(record), hash);
      }
      if (!stored) {
        items.push_back({hash, record});
      } else if (record_frontier_bytes(*stored) != record_frontier_bytes(record)) {
        frontiers_disagree(path_.string(), record_spec(record));
      }
    }
  } else {
    for (const auto& [hash, record] : records_) items.push_back({hash, record});
    lock = std::make_unique<CompactionLock>(path_, /*wait=*/true);
    replaced = list_segments(path_);
  }

  SortedRecords added(std::move(items));
  std::vector<std::unique_ptr<Segment::Cursor>> cursors;
  std::vector<RecordSource*> sources = {&added};
  for (const Table* t : tables_) {
    for (const auto& s : t->segments()) {
      cursors.push_back(std::make_unique<Segment::Cursor>(*s));
      sources.push_back(cursors.back().get());
    }
  }
  const WrittenSegment written = write_segment(path_, identity_, sources, !keep_existing,
                                               keep_existing ? kSaveLevel : kFoldLevel, fail_after_bytes);
  if (!replaced.empty()) fsync_directory(path_);  // the new segment's name is on disk before theirs go
  for (const auto& file : replaced) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
  }
  lock.reset();
  records_.clear();
  chunks_.clear();
  WriteSummary summary{written.entries, written.bytes, list_segments(path_).size()};
  if (summary.segments > kMaxSegments) summary.segments = compact_table(path_, /*all=*/false).segments_after;
  return summary;
}

}  // namespace kriek
