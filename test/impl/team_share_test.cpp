// How a parallel loop's trips fall to its team (impl/team.h team_axes, team_share_runs): the axes collapsed into
// one parallel loop, and the runs of each body in the first range, checked against a walk of the trips.
#include <catch2/catch.hpp>

#include <random>

#include "impl/team.h"
#include "support/random_spec.h"

using namespace kriek;

namespace {

Loop parallel_loop(const std::vector<std::pair<std::int64_t, std::int64_t>>& extent_tiles) {
  Loop l;
  l.parallel = true;
  for (auto [extent, tile] : extent_tiles) l.axes.push_back(LoopAxis{extent, tile});
  l.body_masks = loop_body_masks(l.axes);
  return l;
}

/// The runs of each body in the first of `ways` ranges of the team's trips (the first trips % ways ranges one
/// longer), counted by walking the trips in order.
std::vector<std::int64_t> walked(const Loop& l, const TeamAxes& team, std::int64_t ways) {
  std::int64_t trips = 1;
  for (std::size_t a : team) trips *= l.axes[a].trips();
  const std::int64_t share = trips / ways + (trips % ways != 0 ? 1 : 0);
  std::vector<std::int64_t> runs(l.body_masks.size(), 0);
  for (std::int64_t t = 0; t < share; ++t) {
    std::uint32_t team_bits = 0;
    std::int64_t rest = t;
    for (std::size_t i = team.size(); i-- > 0;) {
      const LoopAxis& axis = l.axes[team[i]];
      if (rest % axis.trips() == axis.trips() - 1 && axis.remainder() != 0) team_bits |= 1u << team[i];
      rest /= axis.trips();
    }
    std::uint32_t team_mask = 0;
    for (std::size_t a : team) team_mask |= 1u << a;
    for (std::size_t b = 0; b < l.body_masks.size(); ++b) {
      const std::uint32_t mask = l.body_masks[b];
      if ((mask & team_mask) != team_bits) continue;
      std::int64_t others = 1;  // the other axes' trips of this pattern, each team trip
      for (std::size_t a = 0; a < l.axes.size(); ++a) {
        if ((team_mask >> a) & 1u) continue;
        others *= (mask >> a) & 1u ? 1 : l.axes[a].full_trips();
      }
      runs[b] += others;
    }
  }
  return runs;
}

/// team_share_runs of every body, in body_masks order.
std::vector<std::int64_t> share(const Loop& l, const TeamAxes& team, std::int64_t ways) {
  std::vector<std::int64_t> runs;
  for (std::uint32_t mask : l.body_masks) runs.push_back(team_share_runs(l, team, ways, mask));
  return runs;
}

}  // namespace

TEST_CASE("team axes: the parallel loop's axes of several trips, up to the first unrolled one", "[impl][parallel]") {
  Loop l = parallel_loop({{10, 4}, {8, 8}, {12, 6}, {9, 2}});
  CHECK(team_axes(l, {false, false, false, false}) == TeamAxes{0, 2, 3});
  CHECK(team_axes(l, {false, false, true, false}) == TeamAxes{0});
  CHECK(team_trips(l, TeamAxes{0, 2, 3}) == 3 * 2 * 5);
  CHECK(team_axes(l, {true, false, false, false}).empty());
  l.parallel = false;
  CHECK(team_axes(l, {false, false, false, false}).empty());
}

TEST_CASE("team share: a boundary trip falls to a later range", "[impl][parallel]") {
  // 257 rows in 129s: one full tile on the first core, the boundary of 128 on the second.
  const Loop halves = parallel_loop({{257, 129}});
  CHECK(share(halves, {0}, 2) == std::vector<std::int64_t>{1, 0});
  // 257 in 128s: two full tiles, then the boundary row: the first range has two full tiles.
  const Loop thirds = parallel_loop({{257, 128}});
  CHECK(share(thirds, {0}, 2) == std::vector<std::int64_t>{2, 0});
  // One way, or no team: every run.
  CHECK(share(thirds, {0}, 1) == std::vector<std::int64_t>{2, 1});
  CHECK(share(thirds, {}, 2) == std::vector<std::int64_t>{2, 1});
}

TEST_CASE("team share: the first range's runs of every body, as a walk of the trips counts them (property)",
          "[impl][parallel][property]") {
  const std::uint64_t seed = testing::test_seed(5);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::pair<std::int64_t, std::int64_t>> axes;
    const std::int64_t rank = draw(1, 4);
    for (std::int64_t a = 0; a < rank; ++a) {
      const std::int64_t extent = draw(1, 40);
      axes.emplace_back(extent, draw(1, extent));
    }
    const Loop l = parallel_loop(axes);
    AxisFlags unrolled(axes.size(), false);
    unrolled[static_cast<std::size_t>(draw(0, rank - 1))] = draw(0, 2) == 0;
    const TeamAxes team = team_axes(l, unrolled);
    const std::int64_t ways = draw(1, 5);
    INFO("round " << round << ", ways " << ways);
    CHECK(share(l, team, ways) == walked(l, team, ways));
  }
}
