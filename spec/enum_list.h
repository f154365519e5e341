// Lists of every value of a small closed enum, checked at compile time. C++ cannot enumerate an enum, but an
// exhaustive switch (no `default:`) names every enumerator, and -Wswitch (an error here) names every switch a new
// enumerator must join. So each list is checked against the enum's name function, itself such a switch:
//
//   inline constexpr std::array kAllLevels = {Level::GL, Level::L2, Level::L1, Level::VRF, Level::RF};
//   static_assert(lists_every_value(kAllLevels, level_name));
//
// A new enumerator then fails to compile in level_name until named there, and the static_assert fails until it
// is in the list; loops over `kAll...` need no count constant.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace kriek {

/// True when `all` holds, in order, exactly the values of E that `name` names (a non-empty name), and those are
/// 0, 1, ..., N-1 (so a list index is the value, e.g. for per-level arrays). E must be an enum over uint8_t
/// (every byte is then a value of E, so each is probed).
template <class E, std::size_t N, class Name>
constexpr bool lists_every_value(const std::array<E, N>& all, Name name) {
  static_assert(std::is_same_v<std::underlying_type_t<E>, std::uint8_t>, "lists_every_value probes every byte");
  for (int v = 0; v < 256; ++v) {
    const auto e = static_cast<E>(v);
    const bool listed = static_cast<std::size_t>(v) < N && all[static_cast<std::size_t>(v)] == e;
    if (listed != !std::string_view(name(e)).empty()) return false;
  }
  return true;
}

}  // namespace kriek
