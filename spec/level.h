// Memory levels, the fixed vocabulary shared by every Target. A Target lists which of them it has, ordered from
// slowest to fastest, with capacities; a TensorSpec names the level its data lives in.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kriek {

/// GL: main memory. L2, L1: caches (data keeps its address unless a move re-lays it out). VRF: vector
/// registers. RF: scalar registers.
enum class Level : std::uint8_t { GL, L2, L1, VRF, RF };

inline constexpr int kLevelCount = 5;

std::string_view level_name(Level l);
std::optional<Level> parse_level(std::string_view text);

/// True for register levels, where every access is a named value rather than memory.
constexpr bool is_register_level(Level l) { return l == Level::VRF || l == Level::RF; }

}  // namespace kriek
