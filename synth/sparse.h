// The sparse DP of the Kriek report (§3.2), a mode of the search (SynthOptions::sparse), never its default. Specs
// whose extents lie on a sparse grid and whose operands are in L1 or registers are solved exhaustively; any other
// Spec is solved from its anchor, a solved neighbour: the same Spec cut to its grid extents (tile_out's and
// split's full tile), or, on the grid, the same Spec with its operands in GL or L2 moved into L1 (its level
// anchor). Of its tilings, which make the new extents and most of the Specs, it tries only the anchor's (carried
// over), the cuts to the anchor and its own tiles of small extents; its moves (into L1 among them, which make the
// level anchor itself) it tries all. The Spec still gets a real frontier (real children, real
// costs, every Impl rebuildable), but only an estimate of its exhaustive one: a tiling its neighbour never chose
// is not tried. The root of a search is solved exhaustively, and a search for less than SparseGrid::min_flops is
// exhaustive throughout. bench/sparse.cpp measures what that loses.
//
// Grid: every extent up to SparseGrid::dense_below (16), and above it the powers of 4 (64, 256, 1024, ...). The
// extents are the output's dimensions and the main reduction's (a matmul's K, a conv's channels, a reduction's
// axis); a conv's filter window is as given.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cache/frontier.h"
#include "sched/action.h"

namespace kriek {

/// The grid and where it applies.
struct SparseGrid {
  /// The rules' version, part of the sparse table's name (X.sparse2.table beside X.table), so that a table of
  /// frontiers estimated by other rules is never read as this search's. 2: level anchors.
  static constexpr int kRulesVersion = 2;

  /// Every extent up to this lies on the grid; above it the powers of 4 (64, 256, ...). 16 rather than 64: the
  /// sparse search of 1000^3 solved 56k Specs exhaustively instead of 111k, and no pick got dearer (that of
  /// 384x3072x768 went from 4.3% above the exhaustive search's to level with it); 8 and 4 made picks up to 5% dearer.
  std::int64_t dense_below = 16;
  /// A search for a Spec of fewer floating-point operations is exhaustive throughout: it takes under a second.
  /// (Above it the sparse search pays: 127x255x63 solved 143,075 Specs in 3.9 s against 209,634 in 5.5 s, 200^3
  /// 96,949 in 3.2 s against 212,542 in 7.6 s, each pick within the timing noise of the exhaustive one.)
  double min_flops = 2.0 * 64 * 64 * 64;
  /// A Spec on the grid with operands in GL or L2 is solved from the same Spec with them in L1 (its level anchor).
  /// The memory levels of three operands multiply every shape on the grid by up to 27 Specs: matmul 512^3's
  /// sparse search solved 20,311 Specs exhaustively in 238 shapes, 2,781 of them once its levels are ignored. With
  /// level anchors it solves 3,455 (16x fewer than the exhaustive search's 56,714 instead of 2.8x), 1000^3 9,612
  /// (34x instead of 8x), and the picks of 512^3, 1000^3, 300x700x500 and conv 1x56x56x64 3x3x64x64 cost what
  /// they cost without them. (Anchors only ever move operands to faster levels or cut extents, and the DP's own
  /// actions never slow a level or grow an extent, so no Spec waits on itself.)
  bool level_anchors = true;

  /// True when a search for `root` is sparse at all (it does at least min_flops).
  bool applies(const Spec& root) const;
  /// True when a Spec of this extent is solved exhaustively (as far as this extent goes).
  bool on_grid(std::int64_t extent) const;
  /// The largest grid extent not above `extent` (at least 1).
  std::int64_t snap(std::int64_t extent) const;
};

/// The anchor of `spec`: `spec` cut to the grid (its output by tile_out's full tile, then its main reduction by
/// split's); where it lies on the grid or neither cut applies, its level anchor (SparseGrid::level_anchors); else
/// nullopt (then it is solved exhaustively).
std::optional<Spec> sparse_anchor(const Spec& spec, const SparseGrid& grid, const Target& target);

/// The actions a sparse search tries on `spec`, whose anchor is solved: the tilings (tile_out, split, slide) of
/// the anchor's frontier, in its order, each once, carried over to `spec` as they are and with every extent that
/// spanned the anchor spanning the Spec (the stride-2 conv of bench/sparse.cpp lost 20% when a tile of all of
/// the anchor's 64 output channels became only one of all 128), those that apply; then the cuts that make the
/// anchor (tile_out to its shape, serial and parallel, and split to its reduction: without them 128x3072x768
/// could not cut N to the anchor's 256 and measured 34% slower than exhaustively); then the Spec's own actions
/// that make no new large extent: its tile_outs into tiles of extents up to grid.dense_below or whole (the
/// register tiles: with only the anchor's, 300x700x500's off-grid Specs took 8-row tiles from their 256-row
/// anchors, +5.2% predicted and +7.8% measured), moves, to_accum, kernels, ... When none of the anchor's tilings
/// applies, the rest still does (until 2026-11-26 the Spec was then solved exhaustively: 1000^3 on a Cascade Lake
/// VM solved 76,419 Specs exhaustively, 9,589 of them for that reason; with the cuts and its own actions 67,985,
/// and the picks of 1000^3, 300x700x500 and conv 1x56x56x64 3x3x64x64 cost the same). A Spec whose anchor is its
/// level anchor also tries its own tilings to extents on the grid: the anchor, in L1, had no use for blocks that
/// fit a cache (with only its tilings, matmul 128x768x2304's pick cost 5.8% more than the exhaustive one, with
/// those 1.4%). The Synthesizer solves a Spec exhaustively after all when nothing these actions make fits.
std::vector<Action> sparse_actions(const Frontier& anchor_frontier, const Spec& anchor, const Spec& spec,
                                   const SparseGrid& grid, const Target& target);

}  // namespace kriek
