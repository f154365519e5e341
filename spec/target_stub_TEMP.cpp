// TEMPORARY stub of Target (spec/target.h) so that impl/ and sched/ link before the real Target detection is
// merged: every name gives an AVX-512 machine (GL unbounded, L2 1 MiB, L1 48 KiB, VRF 32x64 bytes, RF 64 bytes).
// The lead deletes this file at merge.
#include <ostream>

#include <boost/container_hash/hash.hpp>

#include "spec/error.h"
#include "spec/target.h"

namespace kriek {

bool Target::has_level(Level l) const {
  for (const auto& info : levels) {
    if (info.level == l) return true;
  }
  return false;
}

const LevelInfo& Target::level(Level l) const { return levels.at(static_cast<std::size_t>(level_index(l))); }

std::uint32_t Target::vector_elements(Dtype d) const {
  return static_cast<std::uint32_t>(vector_bytes / static_cast<std::int32_t>(dtype_bytes(d)));
}

int Target::level_index(Level l) const {
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].level == l) return static_cast<int>(i);
  }
  KRIEK_ASSERT(false, "target ", name, " has no level ", level_name(l));
  return -1;
}

std::uint64_t Target::fingerprint() const {
  std::size_t seed = boost::hash_value(name);
  boost::hash_combine(seed, static_cast<int>(isa));
  for (const auto& l : levels) {
    boost::hash_combine(seed, static_cast<int>(l.level));
    boost::hash_combine(seed, l.capacity);
    boost::hash_combine(seed, l.line_bytes);
    boost::hash_combine(seed, l.addressed);
  }
  boost::hash_combine(seed, vector_bytes);
  boost::hash_combine(seed, vector_registers);
  boost::hash_combine(seed, scalar_registers);
  return seed;
}

Target make_target(Isa isa, std::int64_t l1_bytes, std::int64_t l2_bytes) {
  Target t;
  t.name = std::string(isa_name(isa));
  t.isa = isa;
  t.vector_bytes = isa == Isa::avx512 ? 64 : isa == Isa::avx2 ? 32 : 0;
  t.vector_registers = isa == Isa::avx512 ? 32 : isa == Isa::avx2 ? 16 : 0;
  t.levels.push_back({Level::GL, 0, 64, true});
  t.levels.push_back({Level::L2, l2_bytes, 64, false});
  t.levels.push_back({Level::L1, l1_bytes, 64, false});
  if (isa != Isa::scalar) t.levels.push_back({Level::VRF, t.vector_registers * t.vector_bytes, t.vector_bytes, true});
  t.levels.push_back({Level::RF, 64, 4, true});
  t.ghz = 2.0;
  return t;
}

Target named_target(std::string_view name) {
  if (name == "host" || name == "avx512") return make_target(Isa::avx512, 48 * 1024, 1024 * 1024);
  if (name == "avx2") return make_target(Isa::avx2, 32 * 1024, 256 * 1024);
  if (name == "scalar") return make_target(Isa::scalar, 32 * 1024, 256 * 1024);
  user_error("unknown target ", name, " (expected host, avx512, avx2 or scalar)");
}

const Target& host_target() {
  static const Target host = named_target("avx512");
  return host;
}

std::ostream& operator<<(std::ostream& out, const Target& t) {
  out << "target " << t.name << "\nisa " << isa_name(t.isa) << "\n";
  for (const auto& l : t.levels) out << "level " << level_name(l.level) << " " << l.capacity << "\n";
  return out;
}

}  // namespace kriek
