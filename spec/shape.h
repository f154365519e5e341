// Shapes of tensors and small helpers on them: volume, printing, and the row-major walk over every index.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <type_traits>

#include <boost/container_hash/hash.hpp>
#include <cereal/cereal.hpp>

#include "spec/error.h"

namespace kriek {

inline constexpr std::size_t kMaxViewRank = 8;

/// Extents, outermost first. Every extent is at least 1. At most kMaxViewRank of them, held inline: the DP makes
/// and drops millions of Specs, and a heap block per operand's shape was a fifth of its time in malloc and free
/// (matmul 1000^3 cold). The interface is std::vector's, as far as kriek uses it; cereal and ByteWriter write it as
/// they write a std::vector<std::int64_t>, so stable hashes and tables on disk are unchanged.
class Shape {
 public:
  using value_type = std::int64_t;
  using size_type = std::size_t;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;
  using reference = std::int64_t&;
  using const_reference = const std::int64_t&;

  Shape() = default;
  explicit Shape(std::size_t n, std::int64_t value = 0) { assign(n, value); }
  Shape(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  Shape(It first, It last) {
    assign(first, last);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  static constexpr std::size_t capacity() { return kMaxViewRank; }
  void reserve(std::size_t n) const { check(n); }

  std::int64_t* data() { return extents_.data(); }
  const std::int64_t* data() const { return extents_.data(); }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }

  std::int64_t& operator[](std::size_t i) { return extents_[i]; }
  std::int64_t operator[](std::size_t i) const { return extents_[i]; }
  std::int64_t& front() { return extents_[0]; }
  std::int64_t front() const { return extents_[0]; }
  std::int64_t& back() { return extents_[size_ - 1]; }
  std::int64_t back() const { return extents_[size_ - 1]; }

  void clear() { size_ = 0; }
  void push_back(std::int64_t e) {
    check(size_ + 1);
    extents_[size_++] = e;
  }
  void pop_back() { --size_; }
  void resize(std::size_t n, std::int64_t value = 0) {
    check(n);
    for (std::size_t i = size_; i < n; ++i) extents_[i] = value;
    size_ = static_cast<std::uint8_t>(n);
  }
  void assign(std::size_t n, std::int64_t value) {
    size_ = 0;
    resize(n, value);
  }
  template <class It>
  void assign(It first, It last) {
    size_ = 0;
    for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
  }
  /// Inserts `value` before `pos`.
  iterator insert(const_iterator pos, std::int64_t value) {
    const auto at = static_cast<std::size_t>(pos - begin());
    check(size_ + 1);
    std::copy_backward(begin() + at, end(), end() + 1);
    extents_[at] = value;
    ++size_;
    return begin() + at;
  }
  /// Inserts [first, last) before `pos`.
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  iterator insert(const_iterator pos, It first, It last) {
    const auto at = static_cast<std::size_t>(pos - begin());
    const Shape tail(begin() + at, end());
    size_ = static_cast<std::uint8_t>(at);
    for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
    for (std::int64_t e : tail) push_back(e);
    return begin() + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<std::int64_t> values) {
    return insert(pos, values.begin(), values.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto at = static_cast<std::size_t>(first - begin());
    const auto n = static_cast<std::size_t>(last - first);
    std::copy(begin() + at + n, end(), begin() + at);
    size_ = static_cast<std::uint8_t>(size_ - n);
    return begin() + at;
  }

  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend std::strong_ordering operator<=>(const Shape& a, const Shape& b) {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }
  friend std::size_t hash_value(const Shape& s) { return boost::hash_range(s.begin(), s.end()); }

  /// As cereal writes a std::vector<std::int64_t>: the size, then the extents (one block in binary archives).
  template <class Archive>
  void save(Archive& ar) const {
    ar(cereal::make_size_tag(static_cast<cereal::size_type>(size_)));
    if constexpr (cereal::traits::is_output_serializable<cereal::BinaryData<const std::int64_t*>, Archive>::value) {
      ar(cereal::binary_data(data(), size_ * sizeof(std::int64_t)));
    } else {
      for (std::int64_t e : *this) ar(e);
    }
  }
  template <class Archive>
  void load(Archive& ar) {
    cereal::size_type n = 0;
    ar(cereal::make_size_tag(n));
    if (n > kMaxViewRank) throw cereal::Exception("a shape of rank " + std::to_string(n) + " (at most 8)");
    size_ = static_cast<std::uint8_t>(n);
    if constexpr (cereal::traits::is_input_serializable<cereal::BinaryData<std::int64_t*>, Archive>::value) {
      ar(cereal::binary_data(data(), size_ * sizeof(std::int64_t)));
    } else {
      for (std::int64_t& e : *this) ar(e);
    }
  }

 private:
  static void check(std::size_t n) {
    KRIEK_ASSERT(n <= kMaxViewRank, "a shape of rank ", n, " (at most ", kMaxViewRank, ")");
  }

  std::array<std::int64_t, kMaxViewRank> extents_{};
  std::uint8_t size_ = 0;
};

/// Product of the extents (1 for rank 0).
std::int64_t volume(const Shape& shape);

/// An index into a tensor of rank at most kMaxViewRank.
using Index = std::array<std::int64_t, kMaxViewRank>;

/// Calls f(index) for every index of `shape` in row-major order (once for rank 0).
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  KRIEK_ASSERT(shape.size() <= kMaxViewRank, "rank ", shape.size(), " exceeds ", kMaxViewRank);
  for (auto e : shape) {
    if (e <= 0) return;
  }
  Index index{};
  while (true) {
    f(static_cast<const std::int64_t*>(index.data()));
    std::size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++index[d] < shape[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (shape.empty()) return;
  }
}

/// Prints "128x256" (the spec-text form).
void print_shape(std::ostream& out, const Shape& shape);
/// The same as a string.
std::string shape_text(const Shape& shape);

}  // namespace kriek
