// Memory use per level: what an Impl keeps live at each level (its own buffers plus the largest peak among its
// children), compared against a target's capacities or a user's limits.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <iosfwd>
#include <string>

#include <boost/container_hash/hash.hpp>
#include <cereal/types/array.hpp>

#include "spec/level.h"

namespace kriek {

struct Spec;
struct Target;

/// Per level (the Level enum's order), the fewest bytes its memory classes tell apart: every amount from one
/// byte up to this is one class (MemoryUse::coarse). The search keeps one frontier entry per class, and classes at
/// the bottom of a cache level only multiplied entries, and the folds' work with them, for plans a sliver of the
/// level apart. From 32 KiB in L2 and 1 KiB in L1 (1/32 of a 1 MiB L2 and of a 32 KiB L1), the best Impl's cost
/// stayed the same on 23 Specs (matmuls square, odd and batched, convs 1x1 to 7x7 strided and padded, a reduction,
/// a compose), also under --memory limits down to 16K of L2 and 2K of L1, while the searches took 15-55% less time
/// (matmul 1000^3 on 2 threads 34.3 -> 21.7 s, peak RSS 1.65 -> 1.15 GB); classes from 256 KiB and 8 KiB first
/// moved one (82x99x63, +0.06%). Registers keep every class in Specs with a register operand (class_cap below).
inline constexpr std::array<std::int64_t, kLevelCount> kSmallestClass = {1, 32 * 1024, 1024, 1, 1};
/// The version of how plans are classed, in DP tables' vocabulary (cache/action_codec.cpp). 2: a fold classes a
/// plan by its peak beside the action's own buffers, the class its frontier entry has (synth/fold.cpp).
inline constexpr int kClassRulesVersion = 2;

/// Bytes per Level (indexed by the Level enum).
static_assert(kLevelCount - 1 <= 8, "coarse_key packs one byte per bounded level");

struct MemoryUse {
  std::array<std::int64_t, kLevelCount> bytes{};

  std::int64_t& operator[](Level l) { return bytes[static_cast<std::size_t>(l)]; }
  std::int64_t operator[](Level l) const { return bytes[static_cast<std::size_t>(l)]; }

  /// Elementwise maximum (peaks of children that run one after another).
  MemoryUse max(const MemoryUse& o) const {
    MemoryUse r;
    for (std::size_t i = 0; i < bytes.size(); ++i) r.bytes[i] = std::max(bytes[i], o.bytes[i]);
    return r;
  }
  /// Elementwise sum (a node's own buffers on top of its children's peak).
  MemoryUse plus(const MemoryUse& o) const {
    MemoryUse r;
    for (std::size_t i = 0; i < bytes.size(); ++i) r.bytes[i] = bytes[i] + o.bytes[i];
    return r;
  }
  /// Every level at most `limits` (a limit of 0 means unbounded).
  bool fits(const MemoryUse& limits) const {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (limits.bytes[i] > 0 && bytes[i] > limits.bytes[i]) return false;
    }
    return true;
  }
  /// The tighter of two sets of limits at every level (a limit of 0 means unbounded).
  MemoryUse tightest(const MemoryUse& o) const {
    MemoryUse r;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      r.bytes[i] = bytes[i] == 0 ? o.bytes[i] : o.bytes[i] == 0 ? bytes[i] : std::min(bytes[i], o.bytes[i]);
    }
    return r;
  }
  /// No level uses more than in `o`.
  bool at_most(const MemoryUse& o) const {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] > o.bytes[i]) return false;
    }
    return true;
  }
  /// The coarse view the search compares: each bounded level rounded up to a power of two, at least the level's
  /// kSmallestClass unless it holds nothing, main memory (GL, unbounded) dropped. Frontiers keep one entry per
  /// such memory class.
  MemoryUse coarse() const;
  /// The same classes packed for fast comparison: one byte per bounded level (0 for no bytes, else 1 + the
  /// exponent of the power of two), so that coarse().at_most(o.coarse()) == coarse_at_most(coarse_key(),
  /// o.coarse_key()).
  std::uint64_t coarse_key() const {
    std::uint64_t key = 0;
    for (std::size_t i = 1; i < bytes.size(); ++i) {
      const auto b = static_cast<std::uint64_t>(std::max(bytes[i], kSmallestClass[i]));
      const std::uint64_t cls = bytes[i] == 0 ? 0 : 1 + static_cast<std::uint64_t>(std::bit_width(b - 1));
      key |= cls << (8 * (i - 1));
    }
    return key;
  }

  friend bool operator==(const MemoryUse&, const MemoryUse&) = default;
  friend auto operator<=>(const MemoryUse&, const MemoryUse&) = default;
  friend std::size_t hash_value(const MemoryUse& m) { return boost::hash_range(m.bytes.begin(), m.bytes.end()); }
  template <class Archive> void serialize(Archive& ar) { ar(bytes); }
};

/// Every class in key `a` at most the one in key `b` (MemoryUse::coarse_key): bytewise a <= b, all bytes below
/// 128, so (b | 0x80..) - a borrows across no byte and keeps each byte's top bit exactly where b >= a.
inline bool coarse_at_most(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kTop = 0x8080808080808080ull;
  return (((b | kTop) - a) & kTop) == kTop;
}

/// True when some key of `keys` is at most `key` in every class (coarse_at_most): the scan under every Pareto
/// filter of the search, four keys per vector instruction where the host has AVX2.
bool any_coarse_at_most(std::span<const std::uint64_t> keys, std::uint64_t key);

/// The index of the first key of `keys` that is at least `key` in every class (coarse_at_most(key, k)), or
/// keys.size(): four keys per vector instruction where the host has AVX2.
std::size_t first_coarse_at_least(std::span<const std::uint64_t> keys, std::uint64_t key);

/// The class key of the elementwise maximum of two peaks, from their class keys: the bytewise maximum (all bytes
/// below 128, so each byte's top bit after (a | 0x80..) - b says whether a's byte is at least b's).
inline std::uint64_t coarse_max(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kTop = 0x8080808080808080ull;
  const std::uint64_t a_at_least = (((a | kTop) - b) & kTop) >> 7;  // 1 in each byte where a >= b
  const std::uint64_t mask = a_at_least * 0xFF;
  return (a & mask) | (b & ~mask);
}

/// The bytewise minimum of two class keys (coarse_max's counterpart).
inline std::uint64_t coarse_min(std::uint64_t a, std::uint64_t b) { return a ^ b ^ coarse_max(a, b); }

/// Which memory classes a Spec's frontier tells apart, as a cap on each byte of its class keys
/// (MemoryUse::coarse_key; class_key below). A Spec with an operand in registers (VRF or RF) tells every class
/// apart (kEveryClass). Any other Spec tells its register use apart only by whether it has any
/// (kRegistersByPresence): no caller adds register bytes beside it except one holding a register buffer, and a
/// register buffer's holder passes it down as an operand to every Spec below it but two kinds, a zeroing beside an
/// accumulation (to_accum) and a pipeline stage beside a register-held input; above those every plan within the
/// capacities serves as well as any other of its memory and register presence. Frontiers of Specs in memory kept
/// one entry per register class that only the register tiles below them told apart: matmul 1000^3 cold on 2
/// threads 44 -> 25-31 s, 1.3 GB -> 0.62 GB (Cascade Lake VM); the best costs of 23 Specs are those of every class
/// (README, "Search"). Limits below a register level's capacity need every class (a frontier of presence only
/// holds no plan that uses some registers but less than the cheapest does): such a search keeps every class in
/// every Spec (synth/synthesizer.h's SynthOptions::every_class).
inline constexpr std::uint64_t kEveryClass = 0x7F7F7F7F7F7F7F7Full;
inline constexpr std::uint64_t kRegistersByPresence = [] {
  std::uint64_t cap = kEveryClass;
  for (Level l : kAllLevels) {
    if (!is_register_level(l)) continue;
    const int shift = 8 * (static_cast<int>(l) - 1);  // coarse_key's byte of level l (GL has none)
    cap = (cap & ~(std::uint64_t{0xFF} << shift)) | (std::uint64_t{1} << shift);
  }
  return cap;
}();
std::uint64_t class_cap(const Spec& spec);

/// The class key of `peak` under `cap` (kEveryClass or kRegistersByPresence): coarse_key with each byte at most
/// cap's, so a capped level has two classes, none and some.
inline std::uint64_t class_key(const MemoryUse& peak, std::uint64_t cap) { return coarse_min(peak.coarse_key(), cap); }

/// The target's capacities as limits (0 for unbounded levels): what the search keeps every frontier within.
MemoryUse capacities(const Target& target);

/// The share of L2 an Impl picked without --memory may keep its buffers in, in percent. A block packed into L2
/// (a matmul's B panel, a conv's filters) is re-read from there while the loops below it stream the other
/// operands through L2 into L1; filled to capacity, the streams evict the block and it comes from L3 instead.
/// Half leaves them room, as BLIS's analytical blocking reserves cache ways for the streamed operands. Measured
/// on a Sapphire Rapids VM (L2 2 MiB, 1 thread, picks from the same frontier): matmul 1024^3 104 -> 152 GFLOP/s,
/// conv[pad=1] 1x7x7x512 3x3x512x512 72 -> 109; a quarter (512 KiB) gave 111 and 48.
inline constexpr std::int64_t kDefaultL2Percent = 50;

/// The limits the commands pick an Impl within unless --memory says otherwise: the capacities, L2 cut to
/// kDefaultL2Percent of it.
MemoryUse default_limits(const Target& target);

/// Parses limits such as "L1=32K,L2=1M,VRF=2048" onto `base`; throws UserError naming a bad entry.
MemoryUse parse_memory_limits(const std::string& text, MemoryUse base);

/// Prints the bounded levels, e.g. "L2=65536 L1=12288 VRF=1792 RF=0".
std::ostream& operator<<(std::ostream& out, const MemoryUse& m);

}  // namespace kriek
