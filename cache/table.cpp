// Opening, checking and querying a mapped table. Every read is bounds-checked against the file's length and
// every block or record is checksummed before it is trusted, so a damaged file gives a UserError, not a crash.
#include "cache/table.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

std::uint64_t read_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}

std::string rebuild_hint(const std::filesystem::path& path) {
  return "delete " + path.string() + " and run kriek synth --table " + path.string() + " again";
}

}  // namespace

Table Table::open(const std::filesystem::path& path) {
  Table t;
  t.path_ = path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) user_error("no DP table at ", path.string(), " (kriek synth --table ", path.string(),
                                    " builds one)");
    user_error("cannot open the DP table ", path.string(), ": ", std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    user_error("cannot stat the DP table ", path.string(), ": ", std::strerror(err));
  }
  t.size_ = static_cast<std::uint64_t>(st.st_size);
  if (t.size_ < kPrefixBytes) {
    ::close(fd);
    user_error("the DP table ", path.string(), " is truncated: ", t.size_, " bytes, shorter than its ", kPrefixBytes,
               "-byte prefix; ", rebuild_hint(path));
  }
  void* map = ::mmap(nullptr, t.size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) user_error("cannot map the DP table ", path.string(), ": ", std::strerror(errno));
  t.data_ = static_cast<const char*>(map);

  if (std::memcmp(t.data_, kTableMagic, sizeof kTableMagic) != 0) {
    t.corrupted("bad magic: this is not a kriek DP table");
  }
  std::uint32_t version = 0, header_length = 0;
  std::memcpy(&version, t.data_ + 8, 4);
  std::memcpy(&header_length, t.data_ + 12, 4);
  if (version != kTableFormatVersion) {
    user_error("the DP table ", path.string(), " has format version ", version, " but this kriek reads version ",
               kTableFormatVersion, ": ", rebuild_hint(path));
  }
  const std::uint64_t header_end = kPrefixBytes + std::uint64_t{header_length};
  if (header_end + 8 > t.size_) {
    user_error("the DP table ", path.string(), " is truncated: ", t.size_, " bytes, its header alone needs ",
               header_end + 8, "; ", rebuild_hint(path));
  }
  if (stable_hash(t.data_, header_end) != read_u64(t.data_ + header_end)) t.corrupted("header checksum mismatch");
  try {
    std::istringstream in(std::string(t.data_ + kPrefixBytes, header_length), std::ios::binary);
    cereal::BinaryInputArchive ar(in);
    ar(t.header_);
  } catch (const std::exception& e) {
    t.corrupted(std::string("header does not decode: ") + e.what());
  }
  const TableHeader& h = t.header_;
  if (t.size_ < h.file_size) {
    user_error("the DP table ", path.string(), " is truncated: ", t.size_, " of its ", h.file_size,
               " bytes (was a write cut short?); ", rebuild_hint(path));
  }
  if (t.size_ > h.file_size) t.corrupted(std::to_string(t.size_ - h.file_size) + " bytes past its end");
  const std::uint64_t blocks = h.block_count();
  if (h.block_entries == 0 || h.fences_offset < header_end + 8 || h.fences_offset + 16 * blocks > h.index_offset ||
      h.index_offset + kIndexEntryBytes * h.entry_count > h.records_offset || h.records_offset > h.file_size) {
    t.corrupted("inconsistent section offsets");
  }
  if (stable_hash(t.data_ + h.fences_offset, 16 * blocks) != h.fences_checksum) {
    t.corrupted("index fences checksum mismatch");
  }
  return t;
}

Table Table::open(const std::filesystem::path& path, const Target& target, const CostModel& model) {
  Table t = open(path);
  t.check_compatible(target, model);
  return t;
}

Table::Table(Table&& o) noexcept
    : path_(std::move(o.path_)), data_(std::exchange(o.data_, nullptr)), size_(o.size_), header_(o.header_) {}

Table& Table::operator=(Table&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
    path_ = std::move(o.path_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = o.size_;
    header_ = o.header_;
  }
  return *this;
}

Table::~Table() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

void Table::corrupted(const std::string& what) const {
  user_error("the DP table ", path_.string(), " is corrupted (", what, "); ", rebuild_hint(path_));
}

void Table::check_compatible(const TableIdentity& want) const {
  const TableIdentity& have = header_.identity;
  const std::string file = path_.string();
  if (have.target_fingerprint != want.target_fingerprint || have.target_name != want.target_name) {
    user_error("the DP table ", file, " was built for target ", have.target_name, " (fingerprint ",
               hex(have.target_fingerprint), ") but this run targets ", want.target_name, " (fingerprint ",
               hex(want.target_fingerprint), "): use the table of this target (kriek's default is per target), or ",
               "delete ", file, " to rebuild it");
  }
  if (have.model_version != want.model_version) {
    user_error("the DP table ", file, " was built with cost model version ", have.model_version,
               " but this kriek has version ", want.model_version, ": its costs are stale; ", rebuild_hint(path_));
  }
  if (have.model_fingerprint != want.model_fingerprint) {
    user_error("the DP table ", file, " was built with other cost-model constants (fingerprint ",
               hex(have.model_fingerprint), ", this run has ", hex(want.model_fingerprint),
               "; was the model recalibrated?): ", rebuild_hint(path_));
  }
  if (have.vocabulary != want.vocabulary) {
    user_error("the DP table ", file, " was written by a kriek with another vocabulary of ops, levels, kernels or ",
               "actions (", hex(have.vocabulary), ", this kriek has ", hex(want.vocabulary), "): ",
               rebuild_hint(path_));
  }
}

void Table::check_compatible(const Target& target, const CostModel& model) const {
  check_compatible(TableIdentity::of(target, model));
}

IndexEntry Table::entry(std::size_t i) const {
  const char* p = data_ + header_.index_offset + i * kIndexEntryBytes;
  IndexEntry e;
  std::memcpy(&e.hash, p, 8);
  std::memcpy(&e.offset, p + 8, 8);
  std::memcpy(&e.length, p + 16, 4);
  std::memcpy(&e.checksum, p + 20, 4);
  return e;
}

void Table::verify_block(std::size_t block) const {
  const std::size_t first = block * header_.block_entries;
  const std::size_t count = std::min<std::size_t>(header_.block_entries, size() - first);
  const std::uint64_t want = read_u64(data_ + header_.fences_offset + 8 * (header_.block_count() + block));
  if (stable_hash(data_ + header_.index_offset + first * kIndexEntryBytes, count * kIndexEntryBytes) != want) {
    corrupted("index block " + std::to_string(block) + " checksum mismatch");
  }
}

RawRecord Table::checked_record(std::size_t i, const IndexEntry& e) const {
  if (e.offset < header_.records_offset || e.offset + e.length > header_.file_size) {
    corrupted("record " + std::to_string(i) + " lies outside the records section");
  }
  const std::string_view bytes(data_ + e.offset, e.length);
  if (static_cast<std::uint32_t>(stable_hash(bytes)) != e.checksum) {
    corrupted("record " + std::to_string(i) + " checksum mismatch");
  }
  return {e.hash, record_spec(bytes), bytes};
}

std::optional<RawRecord> Table::find_record(const Spec& spec) const {
  if (size() == 0) return std::nullopt;
  const std::string key = spec_bytes(canonical_spec(spec));  // the search's memo keys (sched/canonical.h)
  const std::uint64_t h = stable_hash(key);
  const std::size_t blocks = header_.block_count();
  const char* fences = data_ + header_.fences_offset;
  // The first block whose first hash is >= h; entries equal to h may start in the block before it.
  std::size_t lo = 0, hi = blocks;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (read_u64(fences + 8 * mid) < h) lo = mid + 1; else hi = mid;
  }
  std::size_t block = lo == 0 ? 0 : lo - 1;
  const std::size_t B = header_.block_entries;
  for (; block < blocks; ++block) {
    verify_block(block);
    const std::size_t end = std::min(size(), (block + 1) * B);
    std::size_t a = block * B, b = end;
    while (a < b) {
      const std::size_t mid = (a + b) / 2;
      if (entry(mid).hash < h) a = mid + 1; else b = mid;
    }
    for (std::size_t i = a; i < end; ++i) {
      const IndexEntry e = entry(i);
      if (e.hash != h) return std::nullopt;
      RawRecord r = checked_record(i, e);
      if (r.spec == key) return r;  // equal encodings: equal Specs (a hash collision compares unequal here)
    }
  }
  return std::nullopt;
}

std::optional<Frontier> Table::lookup(const Spec& spec) const {
  const std::optional<RawRecord> r = find_record(spec);
  if (!r) return std::nullopt;
  return decode_frontier(r->bytes);
}

void Table::for_each_raw(const std::function<void(const RawRecord&)>& f) const {
  for (std::size_t i = 0; i < size(); ++i) {
    if (i % header_.block_entries == 0) verify_block(i / header_.block_entries);
    f(checked_record(i, entry(i)));
  }
}

void Table::for_each(const std::function<void(const Spec&, const Frontier&)>& f) const {
  for_each_raw([&](const RawRecord& r) { f(spec_from_bytes(r.spec), decode_frontier(r.bytes)); });
}

}  // namespace kriek
