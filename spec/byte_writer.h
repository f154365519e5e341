// ByteWriter: appends values to a byte string exactly as cereal's BinaryOutputArchive writes them on a
// little-endian host (numbers raw, enums as their underlying type, container sizes as u64, a variant's index as
// i32, a struct through its own `serialize` member), but with no stream and no per-value virtual calls. The DP
// table writes a Spec key and a frontier's actions for every Spec a search solves; through an ostringstream and
// cereal that cost ~7 µs per Spec. Its bytes are cereal's (test/spec/stable_hash_test.cpp compares them), so the
// stable hashes of Spec keys, and every table on disk, stay what they were; cereal still reads them.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "spec/shape.h"

namespace kriek {

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(&out) {}

  /// Writes each value in turn (the call syntax of a cereal archive, so `serialize` members accept a ByteWriter).
  template <class... Ts>
  void operator()(const Ts&... values) {
    (put(values), ...);
  }

 private:
  static_assert(std::endian::native == std::endian::little, "cereal's binary archive is little-endian here");

  template <class T>
  void put(const T& v) {
    if constexpr (std::is_arithmetic_v<T>) {
      raw(&v, sizeof v);
    } else if constexpr (std::is_enum_v<T>) {
      const auto u = static_cast<std::underlying_type_t<T>>(v);
      raw(&u, sizeof u);
    } else {
      // A struct with a cereal `serialize` member, which only lists its fields (and does not change them).
      const_cast<T&>(v).serialize(*this);
    }
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put_sequence(v.data(), v.size());
  }
  void put(const Shape& s) { put_sequence(s.data(), s.size()); }  // written as its vector of extents would be
  /// A container's size, then its elements (numbers in one block, as cereal's binary archive writes them).
  template <class T>
  void put_sequence(const T* data, std::size_t n) {
    put(static_cast<std::uint64_t>(n));
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      raw(data, n * sizeof(T));
    } else {
      for (std::size_t i = 0; i < n; ++i) put(data[i]);
    }
  }
  template <class T, std::size_t N>
  void put(const std::array<T, N>& a) {
    for (const T& x : a) put(x);
  }
  template <class... Ts>
  void put(const std::variant<Ts...>& v) {
    put(static_cast<std::int32_t>(v.index()));
    std::visit([this](const auto& alternative) { put(alternative); }, v);
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    raw(s.data(), s.size());
  }

  void raw(const void* data, std::size_t n) { out_->append(static_cast<const char*>(data), n); }

  std::string* out_;
};

}  // namespace kriek
