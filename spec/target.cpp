// Targets: level lookups, the fingerprint, named targets and printing (host detection: spec/host_detect.cpp).
#include <iomanip>
#include <ostream>
#include <sstream>

#include "spec/error.h"
#include "spec/profile.h"
#include "spec/stable_hash.h"
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

std::uint32_t Target::panel_elements(Dtype d) const {
  const std::uint32_t width = vector_elements(d);
  if (width == 0) return 0;
  const std::int32_t line = has_level(Level::L1) ? level(Level::L1).line_bytes : 64;
  const auto per_line = static_cast<std::uint32_t>(line / static_cast<std::int32_t>(dtype_bytes(d)));
  return per_line > width ? (per_line + width - 1) / width * width : width;
}

int Target::level_index(Level l) const {
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].level == l) return static_cast<int>(i);
  }
  KRIEK_ASSERT(false, "target ", name, " has no level ", level_name(l));
  return -1;
}

std::uint64_t Target::fingerprint() const {
  StableHasher h;
  h.add(name).add(static_cast<std::uint64_t>(isa));
  for (const auto& l : levels) {
    h.add(static_cast<std::uint64_t>(l.level)).add(static_cast<std::uint64_t>(l.capacity));
    h.add(static_cast<std::uint64_t>(l.line_bytes)).add(l.addressed).add(static_cast<std::uint64_t>(l.ways));
  }
  h.add(static_cast<std::uint64_t>(cores));
  h.add(static_cast<std::uint64_t>(vector_bytes)).add(static_cast<std::uint64_t>(vector_registers));
  h.add(static_cast<std::uint64_t>(scalar_registers));
  if (profile) h.add(profile->fingerprint());
  return h.value();
}

Target make_target(Isa isa, std::int64_t l1_bytes, std::int64_t l2_bytes, std::int32_t l1_ways,
                   std::int32_t l2_ways) {
  Target t;
  t.name = std::string(isa_name(isa));
  t.isa = isa;
  t.vector_bytes = isa == Isa::avx512 ? 64 : isa == Isa::avx2 ? 32 : 0;
  t.vector_registers = isa == Isa::avx512 ? 32 : isa == Isa::avx2 ? 16 : 0;
  t.levels.push_back({Level::GL, 0, 64, true});
  t.levels.push_back({Level::L2, l2_bytes, 64, false, l2_ways});
  t.levels.push_back({Level::L1, l1_bytes, 64, false, l1_ways});
  if (isa != Isa::scalar) t.levels.push_back({Level::VRF, t.vector_registers * t.vector_bytes, t.vector_bytes, true});
  t.levels.push_back({Level::RF, 64, 4, true});
  return t;
}

Target named_target(std::string_view name) {
  if (name == "host") return host_target();
  if (name == "avx512") return make_target(Isa::avx512, 48 * 1024, 1024 * 1024);
  if (name == "avx2") return make_target(Isa::avx2, 48 * 1024, 1024 * 1024);
  if (name == "scalar") return make_target(Isa::scalar, 48 * 1024, 1024 * 1024);
  user_error("unknown target '", name, "' (expected host, avx512, avx2 or scalar)");
}

namespace {

std::string human(std::int64_t bytes) {
  if (bytes == 0) return "unbounded";
  std::ostringstream out;
  if (bytes % (1024 * 1024) == 0) out << bytes / (1024 * 1024) << " MiB";
  else if (bytes % 1024 == 0) out << bytes / 1024 << " KiB";
  else out << bytes << " B";
  return out.str();
}

}  // namespace


std::ostream& operator<<(std::ostream& out, const Target& t) {
  out << "target " << t.name << "\nisa " << isa_name(t.isa) << "\n";
  if (t.vector_bytes) {
    out << "vector registers " << t.vector_registers << " x " << t.vector_bytes << " bytes (" << t.vector_elements(Dtype::f32)
        << " f32 each)\n";
  }
  out << "levels (slowest first):\n";
  for (const auto& l : t.levels) {
    out << "  " << std::left << std::setw(4) << level_name(l.level) << std::right << std::setw(10) << human(l.capacity);
    if (l.capacity) out << " (" << l.capacity << " bytes)";
    out << ", " << (is_register_level(l.level) ? "register " : "line ") << l.line_bytes << " bytes, "
        << (l.addressed ? "addressed" : "cache: data keeps its address");
    if (l.ways) out << ", " << l.ways << "-way";
    out << "\n";
  }
  if (t.l3_bytes) out << "L3 " << human(t.l3_bytes) << " (informational)\n";
  out << "cores " << t.cores << "\n";
  for (const auto& note : t.notes) out << "note: " << note << "\n";
  if (t.profile) {
    out << "profile " << (t.profile->source.empty() ? "(measured in this process)" : t.profile->source) << ", "
        << std::hex << t.profile->fingerprint() << std::dec
        << (t.profile->measured.empty() ? "" : ", measured " + t.profile->measured) << "\n";
  }
  out << "fingerprint " << std::hex << t.fingerprint() << std::dec << "\n";
  return out;
}

}  // namespace kriek
