// Element types of tensors. Only f32 is computed today; the others are named so that TensorSpecs, the text
// grammar and the table format admit them without redesign.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kriek {

enum class Dtype : std::uint8_t { f32, f16, bf16, i8, i32 };

/// Bytes of one element.
constexpr std::size_t dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::f32: return 4;
    case Dtype::f16: return 2;
    case Dtype::bf16: return 2;
    case Dtype::i8: return 1;
    case Dtype::i32: return 4;
  }
  return 0;
}

/// The text name: "f32", "f16", "bf16", "i8", "i32".
std::string_view dtype_name(Dtype d);
std::optional<Dtype> parse_dtype(std::string_view text);

}  // namespace kriek
