// Records: the Spec's bytes and the frontier's entries (action by tag, cost, peak per level, child entries).
#include "cache/format.h"

#include <cstring>
#include <sstream>

#include <cereal/archives/binary.hpp>

#include "cache/action_codec.h"
#include "spec/error.h"

namespace kriek {
namespace {

// Peaks: a byte with one bit per level that uses memory, then those levels' byte counts (most levels are 0).
void save_peak(cereal::BinaryOutputArchive& ar, const MemoryUse& peak) {
  std::uint8_t mask = 0;
  for (int l = 0; l < kLevelCount; ++l) mask |= static_cast<std::uint8_t>(peak.bytes[l] != 0) << l;
  ar(mask);
  for (int l = 0; l < kLevelCount; ++l) {
    if (mask >> l & 1) ar(peak.bytes[l]);
  }
}

MemoryUse load_peak(cereal::BinaryInputArchive& ar) {
  std::uint8_t mask = 0;
  ar(mask);
  MemoryUse peak;
  for (int l = 0; l < kLevelCount; ++l) {
    if (mask >> l & 1) ar(peak.bytes[l]);
  }
  return peak;
}

// Child entries: a count byte (an action makes few children), then u32 indices.
void save_children(cereal::BinaryOutputArchive& ar, const std::vector<std::uint32_t>& children) {
  KRIEK_ASSERT(children.size() < 256, "a decision with ", children.size(), " children");
  ar(static_cast<std::uint8_t>(children.size()));
  for (std::uint32_t c : children) ar(c);
}

std::vector<std::uint32_t> load_children(cereal::BinaryInputArchive& ar) {
  std::uint8_t n = 0;
  ar(n);
  std::vector<std::uint32_t> children(n);
  for (std::uint32_t& c : children) ar(c);
  return children;
}

}  // namespace

TableIdentity TableIdentity::of(const Target& target, const CostModel& model) {
  return {target.name, target.fingerprint(), model.version, model.fingerprint(), vocabulary_fingerprint()};
}

std::string encode_record(std::string_view spec, const Frontier& frontier) {
  std::ostringstream out(std::ios::binary);
  const auto spec_length = static_cast<std::uint32_t>(spec.size());
  out.write(reinterpret_cast<const char*>(&spec_length), 4);
  out.write(spec.data(), static_cast<std::streamsize>(spec.size()));
  {
    cereal::BinaryOutputArchive ar(out);
    ar(static_cast<std::uint32_t>(frontier.entries.size()));
    for (const FrontierEntry& e : frontier.entries) {
      save_action(ar, e.action);
      ar(e.cost);
      save_peak(ar, e.peak);
      save_children(ar, e.children);
    }
  }
  return std::move(out).str();
}

std::string_view record_spec(std::string_view record) {
  std::uint32_t length = 0;
  if (record.size() < 4) user_error("a table record of ", record.size(), " bytes is truncated; delete the table");
  std::memcpy(&length, record.data(), 4);
  if (length > record.size() - 4) {
    user_error("a table record claims a ", length, "-byte Spec in ", record.size(), " bytes; delete the table");
  }
  return record.substr(4, length);
}

std::string_view record_frontier_bytes(std::string_view record) {
  return record.substr(4 + record_spec(record).size());
}

Frontier decode_frontier(std::string_view record) {
  const std::string_view bytes = record_frontier_bytes(record);
  std::istringstream in(std::string(bytes), std::ios::binary);
  Frontier f;
  try {
    cereal::BinaryInputArchive ar(in);
    std::uint32_t n = 0;
    ar(n);
    if (n > bytes.size()) user_error("a table record claims ", n, " frontier entries in ", bytes.size(), " bytes");
    f.entries.resize(n);
    for (FrontierEntry& e : f.entries) {
      e.action = load_action(ar);
      ar(e.cost);
      e.peak = load_peak(ar);
      e.children = load_children(ar);
    }
  } catch (const cereal::Exception& e) {
    user_error("a table record's frontier does not decode (", e.what(), "): the table is corrupted; delete it");
  }
  return f;
}

}  // namespace kriek
