// SpillFile: where a search under a memory budget (SynthOptions::max_memory) keeps the frontiers it dropped from
// memory: an anonymous temporary file (gone when the process ends) that any thread appends to and reads back from.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace kriek {

class SpillFile {
 public:
  /// Creates the file in the system's temporary directory; UserError when it cannot.
  SpillFile();
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends `bytes` and returns their offset. Thread-safe.
  std::uint64_t append(std::string_view bytes);
  /// The `length` bytes at `offset` (appended before). Thread-safe.
  std::string read(std::uint64_t offset, std::uint64_t length) const;
  /// Bytes appended so far.
  std::uint64_t size() const { return end_.load(std::memory_order_relaxed); }

 private:
  int fd_ = -1;
  std::atomic<std::uint64_t> end_{0};
};

}  // namespace kriek
