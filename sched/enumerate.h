// The enumeration of every legal action of a Spec, the DP's branching (enumerate_actions in action.h), and the
// tile-size grid it draws sizes from.
//
// The grid. For an extent E, the sizes are the powers of two below E (1, 2, 4, 8, ...), the sizes 3*2^i below E up to
// 48 (kLargestThree; 24 for rows, kLargestRowThree) that divide E (48 of 192, 24 of 48), 3 and 6 (kRegisterScaleThrees)
// where they make rows of register tiles, and E itself where the action allows it. Powers of two align tiles to vector
// widths and cache lines; 3 and 6 reach register tiles such as 6x64 (6 rows x 4 vectors + 4 vectors of B fill 28 of 32
// zmm registers), so tile_out offers them in every output dimension but the innermost (which vectors cut), and split (a
// reduction has no register rows) does not; slide offers them (window rows). E keeps a dimension whole. 3*2^i sizes
// that leave a boundary tile elsewhere (48 or 96 of 2048, 3 or 6 of a reduction of 512) are not tried: each multiplies
// the Specs below it (its tile and its boundary tile) and the powers of two beside it do the same work. So 64 gives 1,
// 2, 3, 4, 6, 8, 16, 32 (and 64) with the small threes, 1, 2, 4, 8, 16, 32 without; 96 gives 1, 2, 3, 4, 6, 8, 12, 16,
// 24, 32, 64 (and 96) with them, also 48 without; 384 the same and 128, 256, never 96 or 192. Rows also take 7, 14
// and 28 (kLargestRowSeven) where they divide the extent: the spatial extents of CNNs (56 = 4 x 14) in register tiles
// with no boundary tile.
// Irregular extents (neither 2^i nor 3*2^i: 1000, 63, and the boundary tiles they leave) get only the powers of
// two that divide them and the largest one below them (then 3 and 6, and the extent), so their remainders form
// one chain (1000 -> 488 -> 232 -> 104 -> 40 -> 8) instead of one boundary Spec per size: every other blocking
// stays reachable by nesting (1000 by 256 is 512 | 488, each by 256), at the cost of a loop level. matmul 63^3:
// 2.0M -> 1.46M actions (the same 85,436 Specs), 32% less CPU time, the best cost 0.15% higher.
//
// The order (deterministic, a function of the Spec and target only):
//   1. tile_out over the product of the output dimensions' grids (E included, the whole output excluded; the
//      small threes in every dimension but the innermost; the innermost only in whole vectors, 1 or E: part of
//      a vector fills no register that the register panels of a whole-vector tile do not),
//      dimension 0 outermost, sizes increasing; each tile serial, then parallel unless serial_only or the Spec
//      has under 0.26 MFLOP of work (a thread team costs more than it saves there). A Conv's batch and rows take
//      only 1 and their extent: a conv reaches the matmul kernels one output row at a time (to_matmul's M is a
//      run along the row), rows tiles between 1 and the whole share no registers, and sliding windows across
//      rows are slide's; this keeps the conv search from multiplying every row tile by every column tile. As a
//      parallel loop only, also one slab of rows per core (ceil(extent / cores)): each core then reads the rows
//      of a padded image that its share of the copy wrote (res3_3x3 on 2 threads: 643 -> 615 us); likewise
//      any other output matrix's rows, its columns (where more than its rows) in whole registers (each core its
//      share of a matmul's B),
//      and a vector output's elements in whole registers (sched/enumerate.cpp's add_core_slab).
//      A batched matmul of more than one batch element takes only tile_out to one element (the rest whole),
//      serial or parallel, and no other action: each element is a plain matmul with its own search
//      (4x64x64x64: 344,683 -> 22,238 Specs, 48-95 -> 0.9 s);
//   2. split over the grid below the reduction extent (without the small threes); a conv's taps instead (below);
//   3. slide of each spatial output dimension of a Conv (padded and strided ones too; a conv with an elementwise
//      epilogue alike) over the grid below its extent, with the window at GL, L2, L1 (those the target has and
//      not slower than the image), row-major;
//   4. move_to of each operand (inputs, then the output) to each level faster than its own that holds it,
//      slowest first: L2 (only inputs larger than half of L1; an output computed in L2 only adds its
//      write-back), L1 in the operand's own layout (an alias; not
//      for a strided operand of more rows than the cache has ways, since with a power-of-two stride, which
//      the Spec cannot rule out, all its rows fall into the same sets and evict each other: it is packed),
//      and for inputs also row-major and, for rank >= 2, in panels of one cache line on the innermost
//      dimension (a layout that places elements like an earlier one is skipped; outputs are never packed);
//      VRF row-major with the target's vector size, then in register panels (blk<last>:<vector size>) when the
//      innermost extent is not a multiple of it; RF row-major for single elements. Column-major and other
//      layouts stay reachable by hand (the fluent API, the REPL) but the search does not try them;
//   5. to_accum; 6. bufferize at each cut in GL, then L1, then VRF, row-major, then VRF in register panels
//      where the intermediate's rows end in a partial register; on a target with vector registers, an
//      elementwise pipeline only in registers (a register tile of any size fuses it), and a conv with an
//      elementwise epilogue only after its conv, in memory only where its output is contiguous (whole rows,
//      before the tiles whose epilogue fuses in registers: compose[conv[pad=1], add, relu] 1x56x56x64
//      3x3x64x64 1x1x1x64, which could not slide or pad before and ran its epilogue over a buffer after the
//      conv, 131,880 Specs, 16 s, 953 MiB, 2159 us -> 191,980 Specs, 10.7 s, 647 MiB, 2079 us, the conv alone
//      2077 us); 7. to_matmul; 8. pad_image at GL, L2, L1
//      (those the target has, not slower than the image, holding the padded image; for an unpadded strided
//      pointwise conv the pixels it reads), row-major; 9. flatten;
//      10. select of every legal kernel.
// The conv path. A Conv is searched in two stages, the way brgemm convolutions work (an output block in
// registers accumulating over taps x channels), so that its Specs do not multiply every tile by every split (a
// conv with an elementwise epilogue, compose[conv, add, relu], is tiled, slid, padded and packed like its conv:
// rows, windows, panels, whole-vector channels; its conv stage meets the path below once bufferize cuts it, into
// VRF when fused):
//   - in memory (output at GL, L2 or L1): tile_out, slide, moves and pad_image as above, and to_matmul of 1x1
//     windows, but no split and no to_accum; the image is packed row-major only (to_matmul reads its channels as
//     K, a blocked image has no such rows) and the filters into output-channel panels only (one cache
//     line: oneDNN's Ohwi16o), output channels that fill whole vectors are tiled in whole vectors
//     (a narrower tile only reaches the scalar direct_conv), and the output moves into a register level only as
//     one unpadded output row of one image (to_matmul's M) or a single element (direct_conv);
//     A pointwise conv (1x1 window, unpadded) slides nothing and moves only its filters: its dense rows (all
//     of them, or one) are a matmul that tiles and packs the rest itself; it tiles its output channels only
//     into the widest block of whole vectors whose filters fit half of L2, where all of them do not (a block
//     the rows below reuse from L2), and, in a parallel loop only, into one slab per core; a strided one may
//     take out its stride (pad_image), which makes all its output rows one matmul;
//   - in registers: to_accum, then the filter rows by 1 and, once one row is left, the columns by 1 (a loop over
//     the taps), then to_matmul, whose matmul[acc] the matmul search splits over the channels (K); no tile_out,
//     slide or move (a register tile is cut before it moves in; packing inputs per register tile repeats the
//     copy for every tile).
// conv 1x8x8x16 3x3x16x16: 297,331 -> 8,559 Specs, the same best cost; conv 1x14x14x32 3x3x32x32: 1.82M Specs,
// 326 s, 6.5 GiB -> 41,496 Specs, 14 s, 142 MiB, and a faster kernel (65 -> 74 GFLOP/s); the panels-only
// filters and whole-vector channel tiles: conv[pad=1] 1x28x28x64 3x3x64x64 65,366 -> 43,833 Specs, 3.0M -> 2.0M
// actions, the same best cost; the pointwise rule: conv[stride=2] 1x28x28x128 1x1x128x256 84k -> 46k Specs, the
// same best cost; the epilogue rule: compose[conv, add, relu] 1x10x10x16 3x3x16x16 141k -> 45k Specs, predicted
// 1.019x the conv alone.
// Every action returned applies (the checks are the operators' own `*_fails` functions, which build no node).
#pragma once

#include <cstdint>
#include <vector>

#include "impl/parallel_rule.h"
#include "sched/action.h"

namespace kriek {

/// The smallest reduction chunk a split takes while the output is in memory. Each chunk reads and writes the
/// output tile again, one load and one store per vector of output for k/width FMAs: below one vector of k the
/// traffic outweighs the work, and a tile whose output fits in registers moves it there before splitting
/// finely (matmul 96x192x768: 29% of the Specs solved were matmul[acc] with output in memory and k < 16).
inline constexpr std::int64_t kMinMemorySplit = 16;

/// Bumped when enumerate_actions offers other actions: a table's frontiers are the best of the actions offered when
/// they were solved, so a table of another version is rebuilt (cache/action_codec.cpp's vocabulary carries it).
/// 1: conv rows also in one slab per core, as a parallel loop. 2: a conv accumulates in L1 too (its taps and
/// channel blocks split there). 3: only in output tiles of several rows. 4: a pointwise conv's output channels
/// also in blocks whose filters fit L2 and one slab per core. 5: pad_image takes out the stride of a strided
/// pointwise conv. 6: a matmul's rows also in one slab per core. 7: slabs rounded down (7 rows: 3, not 4). 8: a
/// pipeline's rows in one slab per core too. 9: a narrow matmul rhs transposed into L1 (narrow_rhs); a one-element
/// copy through RF only. 10: dot_fma selected for tiles of dots. 11: dots of any length, a narrow rhs of any K of
/// at least one register. 12: a narrow rhs only where a tile of two rows of dots fits the registers. 13: elementwise
/// ops parallel from kParallelMinElements elements, as moves. 14: pipelines of elementwise ops too. 15: a matmul's
/// or conv's work counted in whole registers (kParallelLanes). 16: one slab per core for every output matrix's rows
/// and a vector output's elements (in whole registers). 17: vector moves to and from panels of several registers
/// (blk<last>:32, :64, ...; impl/tiling's register_rows_dense), which were scalar copies. 18: rows of 7 * 2^i where
/// they divide the extent (kLargestRowSeven). 19: an alias of a tile of panels (rows of one line each) counts the
/// panels it spans against the cache's ways, not its rows. 20: an alias into L2 leaves one way free. 21: a matmul's
/// strided lhs is packed row by row in its own placement (MoveTo::copy), never in panels. 22: an output matrix's
/// columns also in one slab per core (in whole registers). 23: only where they outnumber its rows. 24: a tile of
/// whole panels whose rows are several lines (blk1:64 of f32) counts one run per panel, as one-line panel rows do.
/// 25: slide on padded and strided convs (a window of the padded image's rows: no padded copy of the whole image).
/// 26: a slide's body is serial (impl/node.cpp's loop_body_spec). 27: tile_out of a padded conv's batch and output
/// channels (tile_out's precondition 7). 28: flatten of Move and Zero (a padded copy of 3-channel pixels as whole
/// registers). 29: flatten of strided operands whose runs span several dimensions (TensorSpec::run_dims: a padded
/// image's interior copied as rows of whole registers); an elementwise op's operand moves to VRF only in the
/// placement of the others there (move_to's precondition 10). 30: a dense operand whose layout places it as
/// row-major does (one panel of blk1:64 over 64 columns) tiles as row-major (impl/tiling.cpp). 31: a tile of the
/// whole output of an unpadded conv whose image has rows or columns it never reads (tile_out's precondition 3).
/// 32: pipelines cut and their inputs moved by compose_cuts' rules (enumerate_moves.cpp). 33: one slab per core
/// rounded up (add_core_slab), since a parallel loop's boundary trip runs on its team. 34: a padded conv
/// accumulates in L1 too, its taps split by split_taps (no products with the padding). 35: a padded conv's
/// epilogue may be cut off in L1 on any tile (compose_cuts). 36: an operand moves into L2 past kL2StagingMin bytes,
/// not from half the target's L1.
inline constexpr int kEnumerateVersion = 36;

/// An operand moves into L2 (an alias or a copy there) only past this size: L2 holds what L1 cannot, and 16 KiB is half
/// the smallest L1 of the hosts met (32 KiB). A size of its own, not half the target's L1: a rule that offered fewer
/// actions on a larger cache made a larger machine's optimum dearer than a smaller one's (conv[acc] 10x3x4
/// 3x3x4x6, whose filters a 2 KiB L1 staged in L2 and packed per filter row, 0.93x the cost of packing them from
/// memory on a 48 KiB one; synth_property_test, seed 6).
inline constexpr std::int64_t kL2StagingMin = 16 * 1024;

/// The largest 3*2^i size the grid offers for every extent; larger ones only where they divide the extent.
inline constexpr std::int64_t kRegisterScaleThrees = 6;

/// The largest 3*2^i size the grid offers at all: 48 (three 16-lane vectors of columns, a reduction chunk), 24 in
/// the dimensions that take 3 and 6 (rows: four 6-row register tiles). Past them the powers of two beside each
/// three block caches as well, while every three multiplies the Specs below it. 384x768x3072: 341,093 -> 193,436
/// Specs, 123 -> 35 s with 48 everywhere, the same best cost (of nine shapes with extents 3*2^i one best cost 1.7%
/// higher, 48x3072x768 on 2 threads, measured as fast); rows at 24: 186,490 Specs, 32 -> 28 s, fourteen shapes'
/// best costs the same or within 0.001%. Columns at 24 too would cost matmul 24x768x96 8% (no 48-wide tiles).
inline constexpr std::int64_t kLargestThree = 48;
inline constexpr std::int64_t kLargestRowThree = 24;
/// The largest 7*2^i size the grid offers in the row dimensions, only where it divides the extent.
inline constexpr std::int64_t kLargestRowSeven = 28;

/// True for extents of the form 2^i or 3*2^i (the grid's own sizes).
bool regular_extent(std::int64_t extent);

/// The grid sizes for extent `extent` (see above), increasing, then `extent` when `with_extent`; 3 and 6 also
/// when they do not divide the extent if `small_threes`.
std::vector<std::int64_t> tile_sizes(std::int64_t extent, bool with_extent, bool small_threes = true);

}  // namespace kriek
