// The stable hash, the fingerprint digest and the canonical Spec encoding.
#include "spec/stable_hash.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <sstream>

#include <cereal/archives/binary.hpp>

#include "spec/byte_writer.h"
#include "spec/error.h"

namespace kriek {
namespace {

constexpr std::uint64_t kMul1 = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t kMul2 = 0xC2B2AE3D27D4EB4Full;

std::uint64_t load_le(const unsigned char* p, std::size_t n) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < n; ++i) w |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return w;
}

std::uint64_t load_word(const unsigned char* p) {
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  } else {
    return load_le(p, 8);
  }
}

}  // namespace

std::uint64_t fmix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

std::uint64_t stable_hash(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(size) * kMul1);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) h = std::rotl(h ^ (load_word(p + i) * kMul1), 31) * kMul2;
  if (i < size) h = std::rotl(h ^ (load_le(p + i, size - i) * kMul1), 31) * kMul2;
  return fmix64(h ^ size);
}

StableHasher& StableHasher::add(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes_ += static_cast<char>((v >> (8 * i)) & 0xff);
  return *this;
}

std::string hex16(std::uint64_t v) {
  char digits[17];
  std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(v));
  return digits;
}

StableHasher& StableHasher::add(std::string_view s) {
  add(s.size());
  bytes_ += s;
  return *this;
}

std::string spec_bytes(const Spec& spec) {
  std::string out;
  out.reserve(160);  // a rank-2 matmul takes 128 bytes
  ByteWriter writer(out);
  writer(spec);
  return out;
}

Spec spec_from_bytes(std::string_view bytes) {
  std::istringstream in(std::string(bytes), std::ios::binary);
  Spec spec;
  try {
    cereal::BinaryInputArchive ar(in);
    ar(spec);
  } catch (const cereal::Exception& e) {
    user_error("a table record's Spec does not decode (", e.what(), "): the table is corrupted; delete it");
  }
  return spec;
}

}  // namespace kriek
