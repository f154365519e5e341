// The streaming segment writer (zstd pages compressed in parallel batches; then fences, index, page table and
// filter; the header last) and the k-way merge.
#include "cache/segment_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <queue>
#include <sstream>

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include "cache/segment_filter.h"
#include "spec/stable_hash.h"

namespace kriek {
namespace {

std::string header_bytes(const SegmentHeader& h) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::BinaryOutputArchive ar(out);
    ar(h);
  }
  return std::move(out).str();
}

void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
void put_u32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }

/// Closed pages compressed together: enough to keep both cores busy, little memory.
constexpr std::size_t kBatchPages = 16;

}  // namespace

/// One zstd context per thread that compresses pages (a context is reused from page to page; a page is one frame,
/// so its bytes do not depend on the thread).
struct SegmentWriter::Compressors {
  explicit Compressors(int level)
      : contexts([level] {
          ZSTD_CCtx* c = ZSTD_createCCtx();
          ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
          ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
          return c;
        }) {}
  ~Compressors() {
    for (ZSTD_CCtx* c : contexts) ZSTD_freeCCtx(c);
  }
  tbb::enumerable_thread_specific<ZSTD_CCtx*> contexts;
};

/// Buffered writes to the temporary file that throw UserError naming it on failure.
struct SegmentWriter::Out {
  Out(std::filesystem::path path, std::uint64_t fail_after) : path(std::move(path)), fail_after(fail_after) {
    fd = ::open(this->path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) user_error("cannot create ", this->path.string(), ": ", std::strerror(errno));
  }
  ~Out() {
    if (fd >= 0) ::close(fd);
  }
  void write(const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    if (buffer.size() + n > kBuffer) flush();
    if (n >= kBuffer) return raw(p, n);
    buffer.insert(buffer.end(), p, p + n);
  }
  void flush() {
    raw(buffer.data(), buffer.size());
    buffer.clear();
  }
  void raw(const char* p, std::size_t n) {
    while (n > 0) {
      if (fail_after > 0 && written >= fail_after) {
        user_error("injected failure after ", written, " bytes of ", path.string());
      }
      const ssize_t k = ::write(fd, p, n);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) user_error("cannot write ", path.string(), ": ", std::strerror(errno));
      p += k;
      n -= static_cast<std::size_t>(k);
      written += static_cast<std::uint64_t>(k);
    }
  }

  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::filesystem::path path;
  std::uint64_t fail_after;
  int fd = -1;
  std::uint64_t written = 0;
  std::vector<char> buffer;
};

SegmentWriter::SegmentWriter(std::filesystem::path temp, TableIdentity identity, int level, std::uint64_t fail_after)
    : temp_(std::move(temp)), identity_(std::move(identity)) {
  out_ = std::make_unique<Out>(temp_, fail_after);
  zstd_ = std::make_unique<Compressors>(level);
  // Room for the prefix and header, written last: every header field but the name has a fixed width.
  SegmentHeader h;
  h.identity = identity_;
  pages_offset_ = (kPrefixBytes + header_bytes(h).size() + 8 + 7) / 8 * 8;
  const std::string zeros(pages_offset_, '\0');
  out_->write(zeros.data(), zeros.size());
  page_.reserve(2 * kPageBytes);
}

SegmentWriter::~SegmentWriter() {
  out_.reset();
  if (!finished_) ::unlink(temp_.c_str());
}

void SegmentWriter::add(std::uint64_t hash, std::string_view record) {
  put_varint(page_, record.size());
  page_.append(record);
  hashes_.push_back(hash);
  if (page_.size() >= kPageBytes) flush_page();
}

void SegmentWriter::flush_page() {
  if (page_.empty()) return;
  batch_.push_back(std::move(page_));
  batch_first_.push_back(page_first_);
  page_first_ = hashes_.size();
  page_.clear();
  page_.reserve(2 * kPageBytes);
  if (batch_.size() == kBatchPages) write_batch();
}

void SegmentWriter::write_batch() {
  std::vector<std::string> packed(batch_.size());
  std::vector<std::uint64_t> checksums(batch_.size());
  tbb::parallel_for(std::size_t{0}, batch_.size(), [&](std::size_t i) {
    packed[i].resize(ZSTD_compressBound(batch_[i].size()));
    const std::size_t n = ZSTD_compress2(zstd_->contexts.local(), packed[i].data(), packed[i].size(),
                                         batch_[i].data(), batch_[i].size());
    KRIEK_ASSERT(!ZSTD_isError(n), "zstd: ", ZSTD_getErrorName(n));
    packed[i].resize(n);
    checksums[i] = stable_hash(packed[i]);
  });
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    const std::uint64_t offset = out_->written + out_->buffer.size();
    pages_.push_back({offset, static_cast<std::uint32_t>(packed[i].size()),
                      static_cast<std::uint32_t>(batch_first_[i]), checksums[i]});
    out_->write(packed[i].data(), packed[i].size());
  }
  batch_.clear();
  batch_first_.clear();
}

std::uint64_t SegmentWriter::finish(const std::filesystem::path& final_path) {
  KRIEK_ASSERT(!finished_, "a segment finished twice");
  KRIEK_ASSERT(hashes_.size() < (std::uint64_t{1} << 32), "a segment of ", hashes_.size(), " records");
  flush_page();
  write_batch();
  SegmentHeader h;
  h.identity = identity_;
  h.entry_count = hashes_.size();
  h.page_count = pages_.size();
  h.pages_offset = pages_offset_;
  const std::uint64_t pages_end = out_->written + out_->buffer.size();
  h.fences_offset = (pages_end + 7) / 8 * 8;
  h.index_offset = h.fences_offset + 16 * h.block_count();
  h.page_table_offset = h.index_offset + 8 * h.entry_count;
  h.filter_lines = filter_lines(h.entry_count);
  const std::uint64_t chunks = filter_chunks(h.filter_lines);
  const std::uint64_t filter_checksums_offset = h.page_table_offset + kPageEntryBytes * h.page_count;
  h.filter_offset = (filter_checksums_offset + 8 * chunks + kFilterLineBytes - 1) / kFilterLineBytes * kFilterLineBytes;
  h.file_size = h.filter_offset + kFilterLineBytes * h.filter_lines;
  h.created = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  std::string fences, checksums;
  for (std::uint64_t b = 0; b < h.block_count(); ++b) {
    const std::uint64_t first = b * h.block_entries;
    const std::uint64_t count = std::min<std::uint64_t>(h.block_entries, h.entry_count - first);
    put_u64(fences, hashes_[first]);
    put_u64(checksums, stable_hash(hashes_.data() + first, 8 * count));
  }
  fences += checksums;
  std::string table;
  for (const PageEntry& p : pages_) {
    put_u64(table, p.offset);
    put_u32(table, p.length);
    put_u32(table, p.first_entry);
    put_u64(table, p.checksum);
  }
  std::string filter(kFilterLineBytes * h.filter_lines, '\0'), filter_checksums;
  for (const std::uint64_t hash : hashes_) {
    filter_add(filter.data() + kFilterLineBytes * filter_line(hash, h.filter_lines), hash);
  }
  const std::size_t chunk_bytes = kFilterLineBytes * kFilterChunkLines;
  for (std::uint64_t c = 0; c < chunks; ++c) {
    put_u64(filter_checksums, stable_hash(std::string_view(filter).substr(c * chunk_bytes, chunk_bytes)));
  }
  h.fences_checksum = stable_hash(filter_checksums, stable_hash(table, stable_hash(fences)));
  const std::string padding(h.fences_offset - pages_end, '\0');
  out_->write(padding.data(), padding.size());
  out_->write(fences.data(), fences.size());
  out_->write(hashes_.data(), 8 * hashes_.size());
  out_->write(table.data(), table.size());
  out_->write(filter_checksums.data(), filter_checksums.size());
  const std::string filter_padding(h.filter_offset - filter_checksums_offset - filter_checksums.size(), '\0');
  out_->write(filter_padding.data(), filter_padding.size());
  out_->write(filter.data(), filter.size());
  out_->flush();

  const std::string header = header_bytes(h);
  std::string prefix(kTableMagic, sizeof kTableMagic);
  put_u32(prefix, kTableFormatVersion);
  put_u32(prefix, static_cast<std::uint32_t>(header.size()));
  prefix += header;
  put_u64(prefix, stable_hash(prefix));
  KRIEK_ASSERT(prefix.size() <= pages_offset_, "segment header changed length while being written");
  if (::pwrite(out_->fd, prefix.data(), prefix.size(), 0) != static_cast<ssize_t>(prefix.size())) {
    user_error("cannot write ", temp_.string(), ": ", std::strerror(errno));
  }
  if (::fdatasync(out_->fd) != 0) user_error("cannot sync ", temp_.string(), ": ", std::strerror(errno));
  out_.reset();
  if (::rename(temp_.c_str(), final_path.c_str()) != 0) {
    user_error("cannot rename ", temp_.string(), " to ", final_path.string(), ": ", std::strerror(errno));
  }
  finished_ = true;
  return h.file_size;
}

void fsync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename happened; a directory we cannot open cannot be synced either
  ::fsync(fd);
  ::close(fd);
}

SortedRecords::SortedRecords(std::vector<Item> items) : items_(std::move(items)) {
  std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) {
    return a.hash != b.hash ? a.hash < b.hash : record_spec(a.record) < record_spec(b.record);
  });
}

void frontiers_disagree(const std::string& what, std::string_view spec) {
  std::ostringstream text;
  text << spec_from_bytes(spec);
  user_error("two frontiers of one Spec disagree in ", what, ": ", text.str(),
             " (the tables come from different searches or cost models; rebuild one of them)");
}

void merge_records(const std::vector<RecordSource*>& sources, const std::string& what,
                   const std::function<void(std::uint64_t, std::string_view)>& f) {
  const auto after = [&](std::size_t a, std::size_t b) {  // the heap's order: smallest (hash, Spec) on top
    if (sources[a]->hash() != sources[b]->hash()) return sources[a]->hash() > sources[b]->hash();
    return record_spec(sources[a]->record()) > record_spec(sources[b]->record());
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(after)> heap(after);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i]->next()) heap.push(i);
  }
  // The last record popped, not copied: its source has moved on once since, which keeps it valid.
  bool any = false;
  std::uint64_t last_hash = 0;
  std::string_view last;
  while (!heap.empty()) {
    const std::size_t i = heap.top();
    heap.pop();
    RecordSource& s = *sources[i];
    const std::string_view record = s.record();
    const bool repeat = any && s.hash() == last_hash && record_spec(record) == record_spec(last);
    if (repeat && record_frontier_bytes(record) != record_frontier_bytes(last)) {
      frontiers_disagree(what, record_spec(record));
    }
    if (!repeat) f(s.hash(), record);
    any = true;
    last_hash = s.hash();
    last = record;
    if (s.next()) heap.push(i);
  }
}

}  // namespace kriek
