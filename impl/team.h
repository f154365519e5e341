// How a parallel loop's trips fall to its thread team: the axes collapsed into one parallel loop (boundary trips
// included, each branching to its body), and the runs of each body in the first, longest range, which the cost
// model prices and which kriek's runtime and OpenMP's static schedule cut alike (codegen/runtime).
#pragma once

#include <cstdint>
#include <vector>

#include <boost/container/static_vector.hpp>

#include "impl/node.h"

namespace kriek {

/// A parallel loop's team axes, held inline (the cost model asks for them per action the search prices).
using TeamAxes = boost::container::static_vector<std::size_t, kMaxViewRank>;

/// The axes a parallel `loop` spreads over its team, as one collapsed loop over all their trips, boundary trips
/// included (each team trip picks its body by whether it is an axis's last): those of more than one trip,
/// outermost first, up to the first `unrolled` one. Empty for a serial loop, or where the first axis of several
/// trips is unrolled (the loop then runs serially).
TeamAxes team_axes(const Loop& loop, const AxisFlags& unrolled);
/// The trips of the collapsed loop over `team` (1 for none).
std::int64_t team_trips(const Loop& loop, const TeamAxes& team);
/// The runs of the body of boundary pattern `mask` in the first of `ways` ranges of `loop`'s `team` trips, cut as
/// OpenMP's schedule(static) and kriek's runtime cut them (the first trips % ways ranges one trip longer): the
/// longest range, and the one with the fewest boundary trips, so the slowest where a boundary body costs no more
/// than a full one. The cost model prices a parallel loop by it. An empty `team` or `ways` 1: body_runs.
std::int64_t team_share_runs(const Loop& loop, const TeamAxes& team, std::int64_t ways, std::uint32_t mask);

}  // namespace kriek
