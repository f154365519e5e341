// Memory levels, the fixed vocabulary shared by every Target. A Target lists which of them it has, ordered from
// slowest to fastest, with capacities; a TensorSpec names the level its data lives in.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "spec/enum_list.h"

namespace kriek {

/// GL: main memory. L2, L1: caches (data keeps its address unless a move re-lays it out). VRF: vector
/// registers. RF: scalar registers.
enum class Level : std::uint8_t { GL, L2, L1, VRF, RF };

/// The level's text name, e.g. "VRF" (empty for a byte that is no Level).
constexpr std::string_view level_name(Level l) {
  switch (l) {
    case Level::GL: return "GL";
    case Level::L2: return "L2";
    case Level::L1: return "L1";
    case Level::VRF: return "VRF";
    case Level::RF: return "RF";
  }
  return {};
}

/// Every level, slowest first (the enum's order): the one list of levels to loop over.
inline constexpr std::array kAllLevels = {Level::GL, Level::L2, Level::L1, Level::VRF, Level::RF};
static_assert(lists_every_value(kAllLevels, level_name), "kAllLevels must list every Level in order");
inline constexpr int kLevelCount = static_cast<int>(kAllLevels.size());

std::optional<Level> parse_level(std::string_view text);

/// True for register levels, where every access is a named value rather than memory.
constexpr bool is_register_level(Level l) { return l == Level::VRF || l == Level::RF; }

}  // namespace kriek
