// MemoryUse arithmetic, limits parsing and printing.
#include "impl/memory.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <ostream>
#include <sstream>
#include <vector>

#include "spec/error.h"
#include "spec/spec.h"
#include "spec/target.h"

namespace kriek {

namespace {

/// Whether any of the 8 keys at `at` is at most `key` in every class (kKeysAtMost), or at least it: coarse_at_most
/// on generic vectors of four 64-bit lanes, one AVX2 register in the avx2 clones below, two SSE2 ones otherwise.
template <bool kKeysAtMost>
__attribute__((always_inline)) inline bool any_of_eight(const std::uint64_t* at, std::uint64_t key) {
  constexpr std::uint64_t kTop = 0x8080808080808080ull;
  using Lanes = std::uint64_t __attribute__((vector_size(32)));
  const Lanes keys = {key, key, key, key};
  const Lanes tops = {kTop, kTop, kTop, kTop};
  Lanes a, b;  // two variables: an array of vectors goes through the stack (twice the search time)
  std::memcpy(&a, at, sizeof a);
  std::memcpy(&b, at + 4, sizeof b);
  if constexpr (kKeysAtMost) {
    const auto hit = ((((keys | tops) - a) & tops) == tops) | ((((keys | tops) - b) & tops) == tops);
    return (hit[0] | hit[1] | hit[2] | hit[3]) != 0;
  } else {
    const auto hit = ((((a | tops) - keys) & tops) == tops) | ((((b | tops) - keys) & tops) == tops);
    return (hit[0] | hit[1] | hit[2] | hit[3]) != 0;
  }
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
bool any_coarse_at_most(std::span<const std::uint64_t> keys, std::uint64_t key) {
  // From the back: callers keep keys in cost order and ask about a dearer point, which the keys nearest it in cost,
  // nearest in memory too, are the likeliest to dominate (cold searches on 2 threads: matmul 2048^3 15.2 -> 13.0 s,
  // 1000^3 41.8 -> 38.4 s, 384x768x3072 28.9 -> 25.5 s).
  std::size_t end = keys.size();
  for (; end >= 8; end -= 8) {
    if (any_of_eight<true>(keys.data() + end - 8, key)) return true;
  }
  for (; end > 0; --end) {
    if (coarse_at_most(keys[end - 1], key)) return true;
  }
  return false;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
std::size_t first_coarse_at_least(std::span<const std::uint64_t> keys, std::uint64_t key) {
  std::size_t i = 0;
  while (i + 8 <= keys.size() && !any_of_eight<false>(keys.data() + i, key)) i += 8;  // then the first of those 8
  for (; i < keys.size(); ++i) {
    if (coarse_at_most(key, keys[i])) return i;
  }
  return keys.size();
}

MemoryUse MemoryUse::coarse() const {
  MemoryUse r;
  for (std::size_t i = 1; i < bytes.size(); ++i) {
    std::int64_t p = bytes[i] > 0 ? 1 : 0;
    while (p > 0 && p < std::max(bytes[i], kSmallestClass[i])) p *= 2;
    r.bytes[i] = p;
  }
  return r;
}

std::uint64_t class_cap(const Spec& spec) {
  for (const TensorSpec& t : spec.operands) {
    if (is_register_level(t.level)) return kEveryClass;
  }
  return kRegistersByPresence;
}

MemoryUse capacities(const Target& target) {
  MemoryUse m;
  for (const LevelInfo& l : target.levels) m[l.level] = l.capacity;
  return m;
}

MemoryUse default_limits(const Target& target) {
  MemoryUse m = capacities(target);
  m[Level::L2] = m[Level::L2] * kDefaultL2Percent / 100;
  return m;
}

MemoryUse parse_memory_limits(const std::string& text, MemoryUse base) {
  std::stringstream in(text);
  std::string item;
  std::vector<Level> seen;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) user_error("memory limit '", item, "' is not LEVEL=BYTES (e.g. L1=32K)");
    const std::string name = item.substr(0, eq);
    std::string value = item.substr(eq + 1);
    auto level = parse_level(name);
    if (!level) user_error("memory limit '", item, "' names no level (GL, L2, L1, VRF, RF)");
    if (std::find(seen.begin(), seen.end(), *level) != seen.end()) {
      user_error("memory limit '", item, "' repeats level ", name);
    }
    seen.push_back(*level);
    std::int64_t scale = 1;
    if (!value.empty()) {
      const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(value.back())));
      if (unit == 'K') scale = 1024;
      if (unit == 'M') scale = 1024 * 1024;
      if (unit == 'G') scale = 1024 * 1024 * 1024;
      if (scale != 1) value.pop_back();
    }
    if (value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(c); }) ||
        value.size() > 12) {
      user_error("memory limit '", item, "' has no byte count (e.g. L1=32K)");
    }
    base[*level] = std::stoll(value) * scale;
  }
  return base;
}

std::ostream& operator<<(std::ostream& out, const MemoryUse& m) {
  bool first = true;
  for (Level l : kAllLevels) {
    if (l == Level::GL) continue;  // unbounded
    out << (first ? "" : " ") << level_name(l) << "=" << m[l];
    first = false;
  }
  return out;
}

}  // namespace kriek
