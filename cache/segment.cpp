// Opening, checking and reading one mapped segment file.
#include "cache/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>

#include "cache/segment_filter.h"
#include "spec/stable_hash.h"

namespace kriek {
namespace {

std::uint64_t read_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

std::string rebuild_hint(const std::filesystem::path& table) {
  return "delete " + table.string() + " and run kriek synth --table " + table.string() + " again";
}

std::unique_ptr<Segment> Segment::open(const std::filesystem::path& file, const std::filesystem::path& table) {
  std::unique_ptr<Segment> s(new Segment());
  s->file_ = file;
  s->table_ = table;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw TableError(TableError::Kind::missing, "no segment " + file.string());
    user_error("cannot open the DP table segment ", file.string(), ": ", std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    user_error("cannot stat the DP table segment ", file.string(), ": ", std::strerror(err));
  }
  s->size_ = static_cast<std::uint64_t>(st.st_size);
  if (s->size_ < kPrefixBytes) {
    ::close(fd);
    s->corrupted("truncated: " + std::to_string(s->size_) + " bytes, shorter than its " +
                 std::to_string(kPrefixBytes) + "-byte prefix");
  }
  void* map = ::mmap(nullptr, s->size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) user_error("cannot map the DP table segment ", file.string(), ": ", std::strerror(errno));
  s->data_ = static_cast<const char*>(map);

  if (std::memcmp(s->data_, kTableMagic, sizeof kTableMagic) != 0) s->corrupted("bad magic");
  std::uint32_t version = 0, header_length = 0;
  std::memcpy(&version, s->data_ + 8, 4);
  std::memcpy(&header_length, s->data_ + 12, 4);
  if (version != kTableFormatVersion) {
    throw TableError(TableError::Kind::stale,
                     detail::concat("the DP table ", table.string(), " has format version ", version,
                                    " but this kriek reads version ", kTableFormatVersion, ": ", rebuild_hint(table)));
  }
  const std::uint64_t header_end = kPrefixBytes + std::uint64_t{header_length};
  if (header_end + 8 > s->size_) {
    s->corrupted("truncated: " + std::to_string(s->size_) + " bytes, its header alone needs " +
                 std::to_string(header_end + 8));
  }
  if (stable_hash(s->data_, header_end) != read_u64(s->data_ + header_end)) s->corrupted("header checksum mismatch");
  try {
    std::istringstream in(std::string(s->data_ + kPrefixBytes, header_length), std::ios::binary);
    cereal::BinaryInputArchive ar(in);
    ar(s->header_);
  } catch (const std::exception& e) {
    s->corrupted(std::string("header does not decode: ") + e.what());
  }
  const SegmentHeader& h = s->header_;
  if (s->size_ < h.file_size) {
    s->corrupted("truncated: " + std::to_string(s->size_) + " of its " + std::to_string(h.file_size) + " bytes");
  }
  if (s->size_ > h.file_size) s->corrupted(std::to_string(s->size_ - h.file_size) + " bytes past its end");
  const std::uint64_t blocks = h.block_count();
  const std::uint64_t filter_checksums = h.page_table_offset + kPageEntryBytes * h.page_count;
  const std::uint64_t chunks = filter_chunks(h.filter_lines);
  if (h.block_entries == 0 || h.pages_offset < header_end + 8 || h.pages_offset > h.fences_offset ||
      h.fences_offset + 16 * blocks != h.index_offset || h.index_offset + 8 * h.entry_count != h.page_table_offset ||
      h.filter_lines != filter_lines(h.entry_count) || h.filter_offset < filter_checksums + 8 * chunks ||
      h.filter_offset % kFilterLineBytes != 0 || h.filter_offset + kFilterLineBytes * h.filter_lines != h.file_size ||
      (h.page_count == 0) != (h.entry_count == 0)) {
    s->corrupted("inconsistent section offsets");
  }
  std::uint64_t checksum = stable_hash(s->data_ + h.fences_offset, 16 * blocks);
  checksum = stable_hash(s->data_ + h.page_table_offset, kPageEntryBytes * h.page_count, checksum);
  checksum = stable_hash(s->data_ + filter_checksums, 8 * chunks, checksum);
  if (checksum != h.fences_checksum) s->corrupted("index fences, page table or filter checksum mismatch");
  s->verified_ = std::make_unique<std::atomic<bool>[]>(blocks);
  s->filter_verified_ = std::make_unique<std::atomic<bool>[]>(chunks);
  return s;
}

Segment::~Segment() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

void Segment::corrupted(const std::string& what) const {
  throw TableError(TableError::Kind::corrupted,
                   detail::concat("the DP table ", table_.string(), " is corrupted (segment ",
                                  file_.filename().string(), ": ", what, "); ", rebuild_hint(table_)));
}

std::uint64_t Segment::hash_at(std::uint64_t i) const { return read_u64(data_ + header_.index_offset + 8 * i); }

void Segment::verify_block(std::uint64_t block) const {
  if (verified_[block].load(std::memory_order_relaxed)) return;
  const std::uint64_t first = block * header_.block_entries;
  const std::uint64_t count = std::min<std::uint64_t>(header_.block_entries, header_.entry_count - first);
  const std::uint64_t want = read_u64(data_ + header_.fences_offset + 8 * (header_.block_count() + block));
  if (stable_hash(data_ + header_.index_offset + 8 * first, 8 * count) != want) {
    corrupted("index block " + std::to_string(block) + " checksum mismatch");
  }
  verified_[block].store(true, std::memory_order_relaxed);
}

bool Segment::may_contain(std::uint64_t hash) const {
  if (header_.filter_lines == 0) return false;
  const std::uint64_t line = filter_line(hash, header_.filter_lines);
  const std::uint64_t chunk = line / kFilterChunkLines;
  if (!filter_verified_[chunk].load(std::memory_order_relaxed)) {
    const std::uint64_t first = chunk * kFilterChunkLines;
    const std::uint64_t lines = std::min(kFilterChunkLines, header_.filter_lines - first);
    const std::uint64_t at = header_.page_table_offset + kPageEntryBytes * header_.page_count + 8 * chunk;
    if (stable_hash(data_ + header_.filter_offset + kFilterLineBytes * first, kFilterLineBytes * lines) !=
        read_u64(data_ + at)) {
      corrupted("filter chunk " + std::to_string(chunk) + " checksum mismatch");
    }
    filter_verified_[chunk].store(true, std::memory_order_relaxed);
  }
  return filter_may_contain(data_ + header_.filter_offset + kFilterLineBytes * line, hash);
}

PageEntry Segment::page_entry(std::uint64_t p) const {
  const char* at = data_ + header_.page_table_offset + p * kPageEntryBytes;
  PageEntry e;
  std::memcpy(&e.offset, at, 8);
  std::memcpy(&e.length, at + 8, 4);
  std::memcpy(&e.first_entry, at + 12, 4);
  std::memcpy(&e.checksum, at + 16, 8);
  return e;
}

std::string Segment::page(std::uint64_t p) const {
  const PageEntry e = page_entry(p);
  if (e.offset < header_.pages_offset || e.offset + e.length > header_.fences_offset) {
    corrupted("page " + std::to_string(p) + " lies outside the pages section");
  }
  const char* bytes = data_ + e.offset;
  if (stable_hash(bytes, e.length) != e.checksum) corrupted("page " + std::to_string(p) + " checksum mismatch");
  const unsigned long long size = ZSTD_getFrameContentSize(bytes, e.length);
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxPageBytes) {
    corrupted("page " + std::to_string(p) + " has no valid size");
  }
  std::string out(static_cast<std::size_t>(size), '\0');
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), bytes, e.length);
  if (ZSTD_isError(n) || n != out.size()) corrupted("page " + std::to_string(p) + " does not decompress");
  return out;
}

std::optional<std::string> Segment::find(std::string_view key, std::uint64_t h) const {
  if (!may_contain(h)) return std::nullopt;
  const std::uint64_t blocks = header_.block_count();
  const char* fences = data_ + header_.fences_offset;
  // The first block whose first hash is >= h; entries equal to h may start in the block before it.
  std::uint64_t lo = 0, hi = blocks;
  while (lo < hi) {
    const std::uint64_t mid = (lo + hi) / 2;
    if (read_u64(fences + 8 * mid) < h) lo = mid + 1; else hi = mid;
  }
  const std::uint64_t B = header_.block_entries;
  for (std::uint64_t block = lo == 0 ? 0 : lo - 1; block < blocks; ++block) {
    verify_block(block);
    const std::uint64_t end = std::min(header_.entry_count, (block + 1) * B);
    std::uint64_t a = block * B, b = end;
    while (a < b) {
      const std::uint64_t mid = (a + b) / 2;
      if (hash_at(mid) < h) a = mid + 1; else b = mid;
    }
    for (std::uint64_t i = a; i < end; ++i) {
      if (hash_at(i) != h) return std::nullopt;
      // The page holding record i: the last page whose first entry is <= i.
      std::uint64_t plo = 0, phi = header_.page_count;
      while (phi - plo > 1) {
        const std::uint64_t mid = (plo + phi) / 2;
        if (page_entry(mid).first_entry <= i) plo = mid; else phi = mid;
      }
      const std::string bytes = page(plo);
      std::size_t at = 0;
      std::string_view record;
      for (std::uint64_t j = page_entry(plo).first_entry; j <= i; ++j) {
        const std::uint64_t length = get_varint(bytes, at);
        if (length > bytes.size() - at) corrupted("page " + std::to_string(plo) + " holds a record past its end");
        record = std::string_view(bytes).substr(at, length);
        at += length;
      }
      if (record_spec(record) == key) return std::string(record);  // equal encodings: equal Specs
    }
  }
  return std::nullopt;
}

bool Segment::Cursor::next() {
  const SegmentHeader& h = segment_->header();
  if (entry_ >= h.entry_count) return false;
  if (entry_ % h.block_entries == 0) segment_->verify_block(entry_ / h.block_entries);
  if (at_ >= bytes_[current_].size()) {
    if (page_ >= h.page_count || segment_->page_entry(page_).first_entry != entry_) {
      segment_->corrupted("page table does not match the index at record " + std::to_string(entry_));
    }
    current_ ^= 1;  // the page before stays where it is: records viewed in it stay valid
    bytes_[current_] = segment_->page(page_++);
    at_ = 0;
  }
  const std::string_view bytes = bytes_[current_];
  const std::uint64_t length = get_varint(bytes, at_);
  if (length > bytes.size() - at_) segment_->corrupted("a page holds a record past its end");
  record_ = bytes.substr(at_, length);
  at_ += length;
  hash_ = segment_->hash_at(entry_++);
  return true;
}

}  // namespace kriek
