// MemoryUse arithmetic, limits parsing and printing.
#include "impl/memory.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <ostream>
#include <sstream>
#include <vector>

#include "spec/error.h"
#include "spec/target.h"

namespace kriek {

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
bool any_coarse_at_most(std::span<const std::uint64_t> keys, std::uint64_t key) {
  constexpr std::uint64_t kTop = 0x8080808080808080ull;
  const std::uint64_t high = key | kTop;
  // Generic vectors: four 64-bit lanes, one AVX2 register in the avx2 clone, two SSE2 ones otherwise.
  using Lanes = std::uint64_t __attribute__((vector_size(32)));
  const Lanes highs = {high, high, high, high};
  const Lanes tops = {kTop, kTop, kTop, kTop};
  // From the back: callers keep keys in cost order and ask about a dearer point, which the keys nearest it in cost,
  // nearest in memory too, are the likeliest to dominate (cold searches on 2 threads: matmul 2048^3 15.2 -> 13.0 s,
  // 1000^3 41.8 -> 38.4 s, 384x768x3072 28.9 -> 25.5 s).
  std::size_t end = keys.size();
  for (; end >= 8; end -= 8) {  // one horizontal test per 8 keys
    Lanes a, b;
    std::memcpy(&a, keys.data() + end - 8, sizeof a);
    std::memcpy(&b, keys.data() + end - 4, sizeof b);
    const auto hit = (((highs - a) & tops) == tops) | (((highs - b) & tops) == tops);
    if ((hit[0] | hit[1] | hit[2] | hit[3]) != 0) return true;
  }
  for (; end > 0; --end) {
    if (((high - keys[end - 1]) & kTop) == kTop) return true;
  }
  return false;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
std::size_t first_coarse_at_least(std::span<const std::uint64_t> keys, std::uint64_t key) {
  constexpr std::uint64_t kTop = 0x8080808080808080ull;
  using Lanes = std::uint64_t __attribute__((vector_size(32)));
  const Lanes keys4 = {key, key, key, key};
  const Lanes tops = {kTop, kTop, kTop, kTop};
  std::size_t i = 0;
  for (; i + 8 <= keys.size(); i += 8) {  // one horizontal test per 8 keys, then the first of them
    Lanes a, b;
    std::memcpy(&a, keys.data() + i, sizeof a);
    std::memcpy(&b, keys.data() + i + 4, sizeof b);
    const auto hit = ((((a | tops) - keys4) & tops) == tops) | ((((b | tops) - keys4) & tops) == tops);
    if ((hit[0] | hit[1] | hit[2] | hit[3]) != 0) break;
  }
  for (; i < keys.size(); ++i) {
    if (coarse_at_most(key, keys[i])) return i;
  }
  return keys.size();
}

MemoryUse MemoryUse::coarse() const {
  MemoryUse r;
  for (std::size_t i = 1; i < bytes.size(); ++i) {
    std::int64_t p = bytes[i] > 0 ? 1 : 0;
    while (p > 0 && p < bytes[i]) p *= 2;
    r.bytes[i] = p;
  }
  return r;
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
