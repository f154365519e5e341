// The spill file: an unlinked temporary file written with pwrite at offsets reserved atomically.
#include "synth/spill_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "spec/error.h"

namespace kriek {

SpillFile::SpillFile() {
  std::string name = (std::filesystem::temp_directory_path() / "kriek-spill-XXXXXX").string();
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) user_error("cannot create a spill file for --max-memory in ", name, ": ", std::strerror(errno));
  ::unlink(name.c_str());  // the file lives as long as the descriptor
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t SpillFile::append(std::string_view bytes) {
  const std::uint64_t at = end_.fetch_add(bytes.size(), std::memory_order_relaxed);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) user_error("cannot write the spill file of --max-memory: ", std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return at;
}

std::string SpillFile::read(std::uint64_t offset, std::uint64_t length) const {
  std::string out(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    KRIEK_ASSERT(n > 0, "the spill file ends before offset ", offset + done, " (", std::strerror(errno), ")");
    done += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace kriek
