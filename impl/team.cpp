// A parallel loop's team axes and the first range's runs (see team.h).
#include "impl/team.h"

#include <algorithm>

namespace kriek {

TeamAxes team_axes(const Loop& loop, const AxisFlags& unrolled) {
  TeamAxes team;
  if (!loop.parallel) return team;
  for (std::size_t a = 0; a < loop.axes.size(); ++a) {
    if (loop.axes[a].trips() <= 1) continue;
    if (unrolled[a]) break;
    team.push_back(a);
  }
  return team;
}

std::int64_t team_trips(const Loop& loop, const TeamAxes& team) {
  std::int64_t trips = 1;
  for (std::size_t a : team) trips *= loop.axes[a].trips();
  return trips;
}

std::int64_t team_share_runs(const Loop& loop, const TeamAxes& team, std::int64_t ways, std::uint32_t mask) {
  const std::int64_t trips = team_trips(loop, team);
  const std::int64_t share = (trips + ways - 1) / ways;
  if (team.empty() || ways <= 1 || share == trips) return body_runs(loop, mask);
  const auto at_boundary = [&](std::size_t a) { return ((mask >> a) & 1u) != 0; };
  // The team trips below `share` (a number of mixed radix, the outermost team axis its first digit) whose digits
  // have this mask's pattern: those that equal share's first i digits and are below its digit i, each i, where
  // share's first i digits have the pattern themselves.
  std::int64_t count = 0;
  std::int64_t rest = trips;
  std::int64_t remaining = share;
  for (std::size_t i = 0; i < team.size(); ++i) {
    const std::size_t a = team[i];
    rest /= loop.axes[a].trips();
    const std::int64_t digit = remaining / rest;
    remaining %= rest;
    std::int64_t after = 1;  // the trips of the axes after i with the pattern
    for (std::size_t j = i + 1; j < team.size(); ++j) after *= pattern_trips(loop, mask, team[j]);
    // A digit below share's is at its boundary never (the boundary trip is the last), else one of the full.
    if (!at_boundary(a)) count += std::min(digit, loop.axes[a].full_trips()) * after;
    if (at_boundary(a) != (digit == loop.axes[a].full_trips())) break;
  }
  std::int64_t others = 1;  // each team trip runs the other axes' trips of this pattern
  for (std::size_t a = 0; a < loop.axes.size(); ++a) {
    if (std::find(team.begin(), team.end(), a) == team.end()) others *= pattern_trips(loop, mask, a);
  }
  return count * others;
}

}  // namespace kriek
