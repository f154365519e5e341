// The sparse DP's grid, the anchor it solves an off-grid Spec from, and how the anchor's decisions carry over.
#include "synth/sparse.h"

#include <algorithm>
#include <bit>

#include "sched/enumerate.h"
#include "sched/slide.h"
#include "sched/split.h"
#include "sched/tile_out.h"
#include "spec/error.h"

namespace kriek {

bool SparseGrid::applies(const Spec& root) const { return flop_count(root) >= min_flops; }

bool SparseGrid::on_grid(std::int64_t extent) const {
  if (extent <= dense_below) return true;
  const auto e = static_cast<std::uint64_t>(extent);
  return std::has_single_bit(e) && std::countr_zero(e) % 2 == 0;
}

std::int64_t SparseGrid::snap(std::int64_t extent) const {
  if (extent > dense_below) {
    auto p = std::bit_floor(static_cast<std::uint64_t>(extent));
    if (std::countr_zero(p) % 2 != 0) p /= 2;
    return std::max(static_cast<std::int64_t>(p), dense_below);
  }
  return std::max<std::int64_t>(extent, 1);
}

namespace {

/// True when the tiling `a` (tile_out, split or slide) applies to `spec`: the operators' own checks, which build
/// no node, as enumerate_actions uses them.
bool tiling_applies(const Action& a, const Spec& spec, const Target& target) {
  if (const auto* t = std::get_if<TileOut>(&a)) return !tile_out_fails(*t, spec, target);
  if (const auto* s = std::get_if<Split>(&a)) return !split_fails(*s, spec, target);
  const auto* w = std::get_if<Slide>(&a);
  KRIEK_ASSERT(w != nullptr, "sparse_actions carries over tilings only");
  return !slide_fails(*w, spec, target);
}

/// The full tile (the first child) of `action` on `spec`, or nullopt when it does not apply.
std::optional<Spec> full_tile(const Action& action, const Spec& spec, const Target& target) {
  ExpandResult expanded = expand(action, spec, target);
  auto* ex = std::get_if<Expansion>(&expanded);
  if (ex == nullptr || ex->children.empty()) return std::nullopt;
  return std::move(ex->children.front());
}

}  // namespace

std::optional<Spec> sparse_anchor(const Spec& spec, const SparseGrid& grid, const Target& target) {
  std::optional<Spec> anchor;
  const Shape& shape = spec.output().shape;
  Shape tile = shape;
  for (std::int64_t& e : tile) e = grid.snap(e);
  if (tile != shape) anchor = full_tile(TileOut{tile, false}, spec, target);
  const Spec& cut = anchor ? *anchor : spec;
  if (const auto k = reduction_extent(cut); k && !grid.on_grid(*k)) {
    if (auto split = full_tile(Split{grid.snap(*k)}, cut, target)) anchor = std::move(split);
  }
  if (anchor || !grid.level_anchors || !target.has_level(Level::L1)) return anchor;
  Spec fast = spec;
  bool moved = false;
  for (TensorSpec& t : fast.operands) {
    if (t.level == Level::GL || t.level == Level::L2) t.level = Level::L1, moved = true;
  }
  if (moved) anchor = std::move(fast);
  return anchor;
}

std::vector<Action> sparse_actions(const Frontier& anchor_frontier, const Spec& anchor, const Spec& spec,
                                   const SparseGrid& grid, const Target& target) {
  const Shape& from = anchor.output().shape;
  const Shape& to = spec.output().shape;
  auto tiling = [](const Action& a) {
    return std::holds_alternative<TileOut>(a) || std::holds_alternative<Split>(a) || std::holds_alternative<Slide>(a);
  };
  std::vector<Action> out;
  auto add = [&](const Action& a) {
    if (std::find(out.begin(), out.end(), a) == out.end() && tiling_applies(a, spec, target)) out.push_back(a);
  };
  for (const FrontierEntry& e : anchor_frontier.entries) {
    if (!tiling(e.action)) continue;
    // As it is, and with what spanned the anchor spanning the Spec (a whole row of tiles stays a whole row).
    add(e.action);
    Action whole = e.action;
    if (auto* t = std::get_if<TileOut>(&whole); t && t->tile.size() == from.size() && from.size() == to.size()) {
      for (std::size_t d = 0; d < t->tile.size(); ++d) {
        if (t->tile[d] == from[d]) t->tile[d] = to[d];
      }
    }
    if (auto* s = std::get_if<Slide>(&whole); s && s->dim < from.size() && s->dim < to.size()) {
      if (s->size == from[s->dim]) s->size = to[s->dim];
    }
    add(whole);
  }
  // The cuts that make the anchor itself, serial and parallel where enumerate_actions offers parallel loops
  // (canonical_spec's rule 1 relies on none below that work): their main child is solved already.
  if (from != to) {
    add(TileOut{from, false});
    if (parallel_worthwhile(spec)) add(TileOut{from, true});
  }
  if (const auto k = reduction_extent(anchor); k && k != reduction_extent(spec)) add(Split{*k});
  // A tile of extents in the grid's dense part (or whole) makes no new large extent.
  auto small = [&](const TileOut& t) {
    for (std::size_t d = 0; d < t.tile.size(); ++d) {
      if (t.tile[d] > grid.dense_below && t.tile[d] != to[d]) return false;
    }
    return true;
  };
  // A level anchor (the same extents in L1) had no reason to block its work for a cache: the Spec's own tilings
  // to extents on the grid are its to try too (they make Specs on the grid).
  const bool level_anchor = from == to && reduction_extent(anchor) == reduction_extent(spec);
  auto on_grid = [&](const Action& a) {
    if (const auto* t = std::get_if<TileOut>(&a)) {
      for (std::size_t d = 0; d < t->tile.size(); ++d) {
        if (!grid.on_grid(t->tile[d]) && t->tile[d] != to[d]) return false;
      }
      return true;
    }
    if (const auto* s = std::get_if<Split>(&a)) return grid.on_grid(s->k);
    return false;
  };
  // enumerate_actions lists each action once, so only the carried-over ones above can repeat one.
  const auto carried = static_cast<std::ptrdiff_t>(out.size());
  for (Action& a : enumerate_actions(spec, target)) {
    const auto* t = std::get_if<TileOut>(&a);
    const bool own = (t ? small(*t) : !tiling(a)) || (level_anchor && on_grid(a));
    if (own && std::find(out.begin(), out.begin() + carried, a) == out.begin() + carried) out.push_back(std::move(a));
  }
  return out;
}

}  // namespace kriek
