// The atomic, locked writer: collect records, sort them by (hash, Spec bytes), lay out header, fences, index and
// records, write them to FILE.tmp, fsync, rename over FILE, fsync the directory.
#include "cache/table_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>

#include "spec/stable_hash.h"
#include "sched/canonical.h"
#include "spec/error.h"

namespace kriek {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{8} << 20;

/// Buffered writes to a file descriptor that throw UserError naming the file on failure.
class FileOut {
 public:
  FileOut(int fd, std::filesystem::path path, std::uint64_t fail_after)
      : fd_(fd), path_(std::move(path)), fail_after_(fail_after) {
    buffer_.reserve(kBuffer);
  }
  void write(const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    if (buffer_.size() + n > kBuffer) flush();
    if (n >= kBuffer) return raw(p, n);
    buffer_.insert(buffer_.end(), p, p + n);
  }
  void write_u64(std::uint64_t v) { write(&v, 8); }
  void flush() {
    raw(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  void raw(const char* p, std::size_t n) {
    while (n > 0) {
      if (fail_after_ > 0 && written_ >= fail_after_) {
        user_error("injected failure after ", written_, " bytes of ", path_.string());
      }
      const ssize_t k = ::write(fd_, p, n);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) user_error("cannot write ", path_.string(), ": ", std::strerror(errno));
      p += k;
      n -= static_cast<std::size_t>(k);
      written_ += static_cast<std::uint64_t>(k);
    }
  }
  int fd_;
  std::filesystem::path path_;
  std::uint64_t fail_after_;
  std::uint64_t written_ = 0;
  std::vector<char> buffer_;
};

std::string header_bytes(const TableHeader& h) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::BinaryOutputArchive ar(out);
    ar(h);
  }
  return std::move(out).str();
}

void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
void put_u32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }

void fsync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename happened; a directory we cannot open cannot be synced either
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::filesystem::path lock_path(const std::filesystem::path& table) { return table.string() + ".lock"; }
std::filesystem::path temp_path(const std::filesystem::path& table) { return table.string() + ".tmp"; }

TableWriter::TableWriter(std::filesystem::path path, const Target& target, const CostModel& model)
    : TableWriter(std::move(path), TableIdentity::of(target, model)) {}

TableWriter::TableWriter(std::filesystem::path path, TableIdentity identity)
    : path_(std::move(path)), identity_(std::move(identity)) {
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  const std::filesystem::path lock = lock_path(path_);
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) user_error("cannot create the lock file ", lock.string(), ": ", std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char text[32] = {};
    const ssize_t n = ::pread(lock_fd_, text, sizeof text - 1, 0);
    ::close(lock_fd_);
    lock_fd_ = -1;
    if (err != EWOULDBLOCK) user_error("cannot lock ", lock.string(), ": ", std::strerror(err));
    const std::string pid = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
    user_error("the DP table ", path_.string(), " is being written by another kriek (",
               pid.empty() ? std::string("pid unknown") : "pid " + pid, ", holding ", lock.string(),
               "); wait for it to finish, then run again");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(lock_fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(lock_fd_, pid.data(), pid.size(), 0);
  }
}

TableWriter::~TableWriter() { release(); }

void TableWriter::release() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing the descriptor releases the flock
  lock_fd_ = -1;
}

std::string_view TableWriter::keep(std::string_view bytes) {
  if (chunks_.empty() || chunk_used_ + bytes.size() > chunk_capacity_) {
    chunk_capacity_ = std::max(kChunkBytes, bytes.size());
    chunks_.push_back(std::make_unique<char[]>(chunk_capacity_));
    chunk_used_ = 0;
  }
  char* at = chunks_.back().get() + chunk_used_;
  std::memcpy(at, bytes.data(), bytes.size());
  chunk_used_ += bytes.size();
  return {at, bytes.size()};
}

void TableWriter::add_raw(const RawRecord& r, bool is_new) { items_.push_back({r.hash, r.spec, r.bytes, is_new}); }

void TableWriter::add(const Spec& spec, const Frontier& frontier) {
  const std::string key = spec_bytes(canonical_spec(spec));  // the search's memo keys (sched/canonical.h)
  const std::string_view record = keep(encode_record(key, frontier));
  add_raw({stable_hash(key), record_spec(record), record}, true);
}

void TableWriter::add_table(const Table& table) {
  table.check_compatible(identity_);
  table.for_each_raw([&](const RawRecord& r) { add_raw(r, true); });
}

WriteSummary TableWriter::commit(bool keep_existing, std::uint64_t fail_after_bytes) {
  KRIEK_ASSERT(lock_fd_ >= 0, "commit of a TableWriter that already committed");
  std::error_code ec;
  if (keep_existing && std::filesystem::exists(path_, ec)) {
    existing_.push_back(std::make_unique<Table>(Table::open(path_)));
    existing_.back()->check_compatible(identity_);
    existing_.back()->for_each_raw([&](const RawRecord& r) { add_raw(r, false); });
  }
  std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.spec < b.spec;
  });
  // Deduplicate equal Specs: their frontiers must agree, since the search is deterministic.
  std::vector<Item> unique;
  unique.reserve(items_.size());
  WriteSummary summary;
  for (const Item& it : items_) {
    if (!unique.empty() && unique.back().hash == it.hash && unique.back().spec == it.spec) {
      if (record_frontier_bytes(unique.back().record) != record_frontier_bytes(it.record)) {
        std::ostringstream spec;
        spec << spec_from_bytes(it.spec);
        user_error("two frontiers of one Spec disagree while writing ", path_.string(), ": ", spec.str(),
                   " (the tables come from different searches or cost models; rebuild one of them)");
      }
      unique.back().is_new = unique.back().is_new && it.is_new;
      continue;
    }
    unique.push_back(it);
  }
  items_.clear();
  for (const Item& it : unique) summary.added += it.is_new;
  summary.entries = unique.size();

  TableHeader h;
  h.identity = identity_;
  h.entry_count = unique.size();
  const std::size_t header_length = header_bytes(h).size();  // every field but the name is fixed-width
  h.fences_offset = (kPrefixBytes + header_length + 8 + 7) / 8 * 8;
  h.index_offset = h.fences_offset + 16 * h.block_count();
  h.records_offset = h.index_offset + kIndexEntryBytes * h.entry_count;
  std::string index;
  index.reserve(kIndexEntryBytes * unique.size());
  std::uint64_t offset = h.records_offset;
  for (const Item& it : unique) {
    put_u64(index, it.hash);
    put_u64(index, offset);
    put_u32(index, static_cast<std::uint32_t>(it.record.size()));
    put_u32(index, static_cast<std::uint32_t>(stable_hash(it.record)));
    offset += it.record.size();
  }
  h.file_size = offset;
  std::string fences;
  std::string checksums;
  for (std::uint64_t b = 0; b < h.block_count(); ++b) {
    const std::size_t first = b * h.block_entries;
    const std::size_t count = std::min<std::size_t>(h.block_entries, unique.size() - first);
    put_u64(fences, unique[first].hash);
    put_u64(checksums, stable_hash(index.data() + first * kIndexEntryBytes, count * kIndexEntryBytes));
  }
  fences += checksums;
  h.fences_checksum = stable_hash(fences);
  const std::string header = header_bytes(h);
  KRIEK_ASSERT(header.size() == header_length, "table header changed length while being laid out");
  std::string prefix(kTableMagic, sizeof kTableMagic);
  put_u32(prefix, kTableFormatVersion);
  put_u32(prefix, static_cast<std::uint32_t>(header.size()));
  prefix += header;
  put_u64(prefix, stable_hash(prefix));
  prefix.resize(h.fences_offset, '\0');

  const std::filesystem::path temp = temp_path(path_);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) user_error("cannot create ", temp.string(), ": ", std::strerror(errno));
  try {
    FileOut out(fd, temp, fail_after_bytes);
    out.write(prefix.data(), prefix.size());
    out.write(fences.data(), fences.size());
    out.write(index.data(), index.size());
    for (const Item& it : unique) out.write(it.record.data(), it.record.size());
    out.flush();
    if (::fsync(fd) != 0) user_error("cannot sync ", temp.string(), ": ", std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    user_error("cannot rename ", temp.string(), " to ", path_.string(), ": ", std::strerror(err));
  }
  fsync_directory(path_.parent_path());
  summary.bytes = h.file_size;
  existing_.clear();
  chunks_.clear();
  release();
  return summary;
}

}  // namespace kriek
