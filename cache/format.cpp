// Records: the Spec's bytes and the frontier's entries (action by tag, cost delta, peak per level, child entries),
// varint-coded so that small numbers take one byte; pages of them are compressed by the segment writer.
#include "cache/format.h"

#include <sstream>

#include <cereal/archives/binary.hpp>

#include "cache/action_codec.h"
#include "spec/error.h"

namespace kriek {
namespace {

std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
std::int64_t unzigzag(std::uint64_t v) { return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1); }

std::uint64_t read_varint(std::istream& in) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const int c = in.get();
    if (c == std::char_traits<char>::eof()) user_error("a table record ends inside a number");
    v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return v;
  }
  user_error("a table record holds a number longer than 64 bits");
}

}  // namespace

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::uint64_t get_varint(std::string_view bytes, std::size_t& at) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= bytes.size()) user_error("a table page ends inside a number");
    const auto c = static_cast<unsigned char>(bytes[at++]);
    v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return v;
  }
  user_error("a table page holds a number longer than 64 bits");
}

TableIdentity TableIdentity::of(const Target& target, const CostModel& model) {
  return {target.name, target.fingerprint(), model.version, model.fingerprint(), vocabulary_fingerprint()};
}

void append_record(std::string& out, std::string_view spec, const Frontier& frontier) {
  out.reserve(out.size() + spec.size() + 8 + 64 * frontier.entries.size());
  put_varint(out, spec.size());
  out.append(spec);
  append_frontier(out, frontier);
}

void append_frontier(std::string& out, const Frontier& frontier) {
  put_varint(out, frontier.entries.size());
  ByteWriter ar(out);
  Cost previous = 0;
  for (const FrontierEntry& e : frontier.entries) {
    save_action(ar, e.action);
    put_varint(out, zigzag(static_cast<std::int64_t>(e.cost - previous)));
    previous = e.cost;
    std::uint8_t mask = 0;
    for (int l = 0; l < kLevelCount; ++l) mask |= static_cast<std::uint8_t>(e.peak.bytes[l] != 0) << l;
    out.push_back(static_cast<char>(mask));
    for (int l = 0; l < kLevelCount; ++l) {
      if (mask >> l & 1) put_varint(out, zigzag(e.peak.bytes[l]));
    }
    put_varint(out, e.children.size());
    for (std::uint32_t c : e.children) put_varint(out, c);
  }
}

std::string_view record_spec(std::string_view record) {
  std::size_t at = 0;
  const std::uint64_t length = get_varint(record, at);
  if (length > record.size() - at) {
    user_error("a table record claims a ", length, "-byte Spec in ", record.size(), " bytes; the table is corrupted");
  }
  return record.substr(at, length);
}

std::string_view record_frontier_bytes(std::string_view record) {
  const std::string_view spec = record_spec(record);
  return record.substr(static_cast<std::size_t>(spec.data() + spec.size() - record.data()));
}

Frontier decode_frontier(std::string_view record) { return decode_frontier_bytes(record_frontier_bytes(record)); }

Frontier decode_frontier_bytes(std::string_view bytes) {
  std::istringstream in(std::string(bytes), std::ios::binary);
  Frontier f;
  try {
    const std::uint64_t n = read_varint(in);
    if (n > bytes.size()) user_error("a table record claims ", n, " frontier entries in ", bytes.size(), " bytes");
    f.entries.resize(n);
    cereal::BinaryInputArchive ar(in);
    Cost previous = 0;
    for (FrontierEntry& e : f.entries) {
      e.action = load_action(ar);
      e.cost = previous + static_cast<Cost>(unzigzag(read_varint(in)));
      previous = e.cost;
      const int mask = in.get();
      if (mask == std::char_traits<char>::eof()) user_error("a table record ends inside a frontier entry");
      for (int l = 0; l < kLevelCount; ++l) {
        if (mask >> l & 1) e.peak.bytes[l] = unzigzag(read_varint(in));
      }
      const std::uint64_t children = read_varint(in);
      if (children > bytes.size()) user_error("a table record claims ", children, " children");
      e.children.resize(children);
      for (std::uint32_t& c : e.children) c = static_cast<std::uint32_t>(read_varint(in));
    }
  } catch (const cereal::Exception& e) {
    user_error("a table record's frontier does not decode (", e.what(), "): the table is corrupted");
  }
  return f;
}

}  // namespace kriek
