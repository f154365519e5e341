// Element types of tensors. Only f32 is computed today; the others are named so that TensorSpecs, the text
// grammar and the table format admit them without redesign.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "spec/enum_list.h"

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

/// The text name: "f32", "f16", "bf16", "i8", "i32" (empty for a byte that is no Dtype).
constexpr std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::f32: return "f32";
    case Dtype::f16: return "f16";
    case Dtype::bf16: return "bf16";
    case Dtype::i8: return "i8";
    case Dtype::i32: return "i32";
  }
  return {};
}

/// Every dtype, in the enum's order.
inline constexpr std::array kAllDtypes = {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::i32};
static_assert(lists_every_value(kAllDtypes, dtype_name), "kAllDtypes must list every Dtype in order");

std::optional<Dtype> parse_dtype(std::string_view text);

}  // namespace kriek
