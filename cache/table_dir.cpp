// Table directories: marker, segment and temporary names, the compaction lock, setting aside, the root log.
#include "cache/table_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "cache/format.h"
#include "cache/segment_writer.h"

namespace kriek {
namespace {

constexpr const char* kMarker = "KRIEKTBL";
constexpr const char* kSegmentSuffix = ".seg";
constexpr const char* kTempSuffix = ".part";

std::atomic<std::uint64_t> counter{0};

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

std::string unique_stem() {
  char name[64];
  std::snprintf(name, sizeof name, "%016llx-%d-%llu", static_cast<unsigned long long>(now_ns()),
                static_cast<int>(::getpid()), static_cast<unsigned long long>(counter.fetch_add(1)));
  return name;
}

}  // namespace

PathKind path_kind(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return PathKind::absent;
  if (std::filesystem::is_directory(status)) {
    if (std::filesystem::exists(path / kMarker, ec)) return PathKind::table;
    return std::filesystem::is_empty(path, ec) && !ec ? PathKind::table : PathKind::other;
  }
  if (std::filesystem::is_regular_file(status)) {
    char magic[8] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(magic, sizeof magic);
    if (in && std::memcmp(magic, kTableMagic, sizeof magic) == 0) return PathKind::legacy_table;
  }
  return PathKind::other;
}

void create_table_dir(const std::filesystem::path& path) {
  switch (path_kind(path)) {
    case PathKind::absent:
    case PathKind::table: break;
    case PathKind::legacy_table:
      throw TableError(TableError::Kind::stale,
                       "the DP table " + path.string() + " is a one-file table of an older kriek; this kriek " +
                           "keeps a table as a directory of segments (format version " +
                           std::to_string(kTableFormatVersion) + "): " + "delete " + path.string() +
                           " and run kriek synth --table " + path.string() + " again");
    case PathKind::other:
      throw TableError(TableError::Kind::not_a_table,
                       path.string() + " is not a kriek DP table (kriek keeps a table as a directory of segments, " +
                           "which it creates); name a new path with --table");
  }
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) user_error("cannot create the DP table directory ", path.string(), ": ", ec.message());
  if (!std::filesystem::exists(path / kMarker, ec)) {
    std::ofstream marker(path / kMarker);
    marker << "kriek DP table: a directory of segments (format version " << kTableFormatVersion << ")\n";
    if (!marker) user_error("cannot write ", (path / kMarker).string());
  }
}

std::vector<std::filesystem::path> list_segments(const std::filesystem::path& table) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(table, ec)) {
    if (e.path().extension() == kSegmentSuffix) out.push_back(e.path());
  }
  if (ec) user_error("cannot list the DP table ", table.string(), ": ", ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

std::filesystem::path new_segment_path(const std::filesystem::path& table) {
  return table / (unique_stem() + kSegmentSuffix);
}

std::filesystem::path new_temp_path(const std::filesystem::path& table) {
  return table / ("tmp-" + unique_stem() + kTempSuffix);
}

bool is_temp_file(const std::filesystem::path& file) { return file.extension() == kTempSuffix; }

void remove_dead_temps(const std::filesystem::path& table) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(table, ec)) {
    if (!is_temp_file(e.path())) continue;
    // tmp-<time>-<pid>-<counter>.part
    const std::string name = e.path().filename().string();
    const std::size_t a = name.find('-', 4), b = name.find('-', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const int pid = std::atoi(name.substr(a + 1, b - a - 1).c_str());
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) std::filesystem::remove(e.path(), ec);
  }
}

CompactionLock::CompactionLock(const std::filesystem::path& table, bool wait) {
  const std::filesystem::path lock = table / "compact.lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) user_error("cannot create the lock file ", lock.string(), ": ", std::strerror(errno));
  while (::flock(fd_, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) user_error("cannot lock ", lock.string(), ": ", std::strerror(err));
    return;
  }
}

CompactionLock::~CompactionLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

std::filesystem::path set_aside(const std::filesystem::path& path) {
  const std::filesystem::path aside = path.string() + ".corrupted";
  std::error_code ec;
  if (path_kind(aside) != PathKind::other) std::filesystem::remove_all(aside, ec);
  std::filesystem::rename(path, aside, ec);
  if (ec) user_error("cannot move the damaged DP table ", path.string(), " aside: ", ec.message());
  return aside;
}

void remove_table(const std::filesystem::path& path) {
  const PathKind kind = path_kind(path);
  KRIEK_ASSERT(kind != PathKind::other, "remove_table of ", path.string(), ", which is not a table");
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) user_error("cannot remove the DP table ", path.string(), ": ", ec.message());
}

void note_root_use(const std::filesystem::path& table, std::uint64_t root) {
  const std::filesystem::path log = table / "roots";
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;  // the log only orders gc; a table without it still works
  const std::uint64_t entry[2] = {root, now_ns()};
  [[maybe_unused]] const ssize_t n = ::write(fd, entry, sizeof entry);
  ::close(fd);
}

std::map<std::uint64_t, std::uint64_t> read_root_uses(const std::filesystem::path& table) {
  std::ifstream in(table / "roots", std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::map<std::uint64_t, std::uint64_t> uses;
  for (std::size_t at = 0; at + 16 <= bytes.size(); at += 16) {
    std::uint64_t entry[2];
    std::memcpy(entry, bytes.data() + at, 16);
    uses[entry[0]] = std::max(uses[entry[0]], entry[1]);
  }
  return uses;
}

void write_root_uses(const std::filesystem::path& table, const std::map<std::uint64_t, std::uint64_t>& uses) {
  const std::filesystem::path temp = new_temp_path(table);
  {
    std::ofstream out(temp, std::ios::binary);
    for (const auto& [root, time] : uses) {
      const std::uint64_t entry[2] = {root, time};
      out.write(reinterpret_cast<const char*>(entry), sizeof entry);
    }
    if (!out) user_error("cannot write ", temp.string());
  }
  std::error_code ec;
  std::filesystem::rename(temp, table / "roots", ec);
  if (ec) user_error("cannot replace ", (table / "roots").string(), ": ", ec.message());
}

}  // namespace kriek
