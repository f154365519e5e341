// enumerate_actions: every legal action of a Spec in the documented order (see enumerate.h for the grid).
#include "sched/enumerate.h"

#include <algorithm>
#include <bit>

#include "impl/kernel.h"
#include "sched/enumerate_detail.h"
#include "sched/flatten.h"
#include "sched/pad_image.h"
#include "sched/select.h"
#include "sched/slide.h"
#include "sched/split.h"
#include "sched/split_taps.h"
#include "sched/support.h"
#include "sched/tile_out.h"
#include "sched/to_accum.h"
#include "sched/to_matmul.h"
#include "spec/conv_geometry.h"
#include "spec/reasons.h"

namespace kriek {

namespace sched_detail {

ConvPath conv_path(const Spec& spec) {
  ConvPath p;
  const Conv* conv = leading_conv(spec.op);
  if (conv == nullptr) return p;
  p.own = std::holds_alternative<Conv>(spec.op);
  p.led = true;
  p.g = conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
  p.row_dims = p.g.row_dim + 1;
  p.padded = conv->padded();
  if (!p.own) return p;
  p.in_registers = is_register_level(spec.output().level);
  p.pointwise = !p.padded && p.g.fh == 1 && p.g.fw == 1;
  // Only a tile of several output rows (or images) gains from it: one row is a register tile, whose taps and
  // channels the register stage loops over already (res3_3x3 searched 19.2 s with single rows too).
  p.in_l1 = spec.output().level == Level::L1 && (!p.pointwise || accumulates(spec.op)) &&
            p.g.batch * p.g.oh > 1;
  return p;
}

}  // namespace sched_detail

namespace {

using namespace sched_detail;

/// A matmul of more than one batch element: the search cuts it into single ones first, each a plain matmul's
/// search (4x64x64x64: 344,683 -> 22,238 Specs); the batch loop may be the parallel one.
bool batched_matmul(const Spec& spec) {
  return std::holds_alternative<Matmul>(spec.op) && spec.output().rank() == 3 && spec.output().shape[0] > 1;
}

/// A pointwise conv's output-channel tiles at the conv stage (ascending): all of them (the matmul below each row
/// tiles them) and, where its filters do not fit half of L2, the widest block of whole vectors whose filters do, so
/// a loop over those blocks outside the rows keeps one block in L2 for every row instead of streaming all the
/// filters from memory per row (ResNet-50's res4a_branch1, 2 MB of filters, 1 thread: 71 -> 149 GFLOP/s).
std::vector<std::int64_t> pointwise_channel_tiles(const Spec& spec, const Target& target) {
  const std::int64_t f = spec.output().shape.back();
  const std::int64_t width = target.vector_elements(spec.output().dtype);
  if (width <= 1 || f % width != 0 || !target.has_level(Level::L2)) return {f};
  const std::int64_t per_channel = spec.input(1).bytes() / f;
  const std::int64_t half_l2 = target.level(Level::L2).capacity / 2;
  if (spec.input(1).bytes() <= half_l2) return {f};
  std::int64_t block = width;
  while (2 * block < f && 2 * block * per_channel <= half_l2) block *= 2;
  if (block * per_channel > half_l2) return {f};
  return {block, f};
}

/// One slab of `extent` per core, ceil(extent / cores) in whole `multiple`s, for a parallel loop only: added to
/// the ascending `grid` and returned, so that the serial loop skips it; 0 when it cuts nothing or the grid has it
/// already (a tile both loops take). Rounded up, since a parallel loop's boundary trip runs beside its full ones
/// (team_share_runs): 257 rows as 129 and 128 take both cores at once. A conv's rows: each core reads the rows of
/// the image that its share of the image copy wrote (res3_3x3 on 2 threads: 643 -> 610 us); a pointwise conv's
/// output channels, in whole vectors: each core keeps its share of the filters (ResNet-50's res4a_branch1 on 2
/// threads, whose rows split made each core stream all 2 MB of filters per row: 1336 -> 684 us); a matmul's rows:
/// a tile of the grid that does not divide them leaves a boundary, and with it an unbalanced share (82x99x63 on 2
/// threads: 4.78 -> 3.70 us in rows of 41; 1000^3 6.80 -> 5.63 ms in rows of 500), and a pipeline's rows alike
/// (compose[matmul, add, relu] 82x99x63: 2-row parallel tiles, 4.46 us; in rows of 41, 3.5 us, level with the
/// matmul alone; its search 7.7 -> 9.9 s, 300k -> 349k Specs).
std::int64_t add_core_slab(std::vector<std::int64_t>& grid, std::int64_t extent, std::int64_t cores,
                           std::int64_t multiple) {
  const std::int64_t slab = (extent + cores * multiple - 1) / (cores * multiple) * multiple;
  const auto at = std::lower_bound(grid.begin(), grid.end(), slab);
  if (slab < multiple || slab >= extent || (at != grid.end() && *at == slab)) return 0;
  grid.insert(at, slab);
  return slab;
}

void tile_outs(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  const Shape& shape = spec.output().shape;
  const std::size_t rank = shape.size();
  if (rank == 0 || cp.in_registers) return;
  std::vector<std::vector<std::int64_t>> grids;
  std::size_t total = 1;
  const std::size_t row_dims = cp.row_dims;
  const std::int64_t width = target.vector_elements(spec.output().dtype);
  const bool batched = batched_matmul(spec);
  const bool worthwhile = parallel_worthwhile(spec);
  // A conv's rows, a pointwise conv's output channels and the rows of any other output matrix (a matmul's, a
  // pipeline's, e.g. a matmul with its epilogue, an elementwise op's or a reduction's) also in one slab per core
  // (add_core_slab), and a vector output's elements in whole registers: reducesum[axis=0] 1000x999 on 2 threads
  // took 212 us while a parallel loop's boundary ran after it on one core (the grid's 512 columns left 487 there,
  // so the search copied the input in parallel instead), in two slabs of 496 columns 65 us.
  const bool matrix_rows = !cp.led && !batched && rank == 2;
  const bool vector_slabs = !cp.led && rank == 1;
  const bool core_slabs = (cp.own || matrix_rows || vector_slabs) && !spec.serial_only && worthwhile;
  const std::int64_t cores = std::max<std::int64_t>(1, target.cores);
  std::vector<std::int64_t> slabs(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    // 3 and 6 make register tiles' rows; the innermost dimension is cut by vector widths (powers of two).
    if (d < row_dims) {
      grids.push_back(shape[d] > 1 ? std::vector<std::int64_t>{1, shape[d]} : std::vector<std::int64_t>{1});
      if (core_slabs) slabs[d] = add_core_slab(grids.back(), shape[d], cores, 1);
    } else if (cp.pointwise && d + 1 == rank) {
      grids.push_back(pointwise_channel_tiles(spec, target));
      if (core_slabs && width > 1 && shape[d] % width == 0) {
        slabs[d] = add_core_slab(grids.back(), shape[d], cores, width);
      }
    } else {
      grids.push_back(tile_sizes(shape[d], true, d + 1 < rank));
      if (core_slabs && matrix_rows && d + 1 < rank) slabs[d] = add_core_slab(grids.back(), shape[d], cores, 1);
      // Columns where there are more of them than rows: each core then keeps its share of the wider operand
      // (a matmul's B). With rows as many or more their slabs serve (1000^3's search took 1.3x the time with
      // column slabs too, for a pick 0.1% cheaper).
      if (core_slabs && matrix_rows && d + 1 == rank && width > 1 && shape[d] > shape[d - 1]) {
        slabs[d] = add_core_slab(grids.back(), shape[d], cores, width);
      }
      if (core_slabs && vector_slabs) {
        slabs[d] = add_core_slab(grids.back(), shape[d], cores, std::max<std::int64_t>(width, 1));
      }
    }
    // A batched matmul runs one batch element at a time: the batch tile is 1, the rest whole (below).
    if (batched) grids.back() = {d == 0 ? 1 : shape[d]};
    // The innermost dimension in whole vectors, 1 or whole: a tile of part of a vector fills no register the
    // whole vectors and the register panels of the rest do not (measured: the same kernels, far fewer Specs).
    // A conv's output channels only in whole vectors where they fill whole vectors: a narrower tile only
    // reaches the scalar direct_conv, which the whole vectors beat.
    if (d + 1 == rank && width > 1) {
      const bool conv_vectors = cp.led && shape[d] % width == 0;
      std::erase_if(grids.back(), [&](std::int64_t size) {
        return size % width != 0 && (conv_vectors || (size != 1 && size != shape[d]));
      });
    }
    total *= grids.back().size();
  }
  out.reserve(out.size() + 2 * total + 64);
  std::vector<std::size_t> at(rank, 0);
  TileOut t{Shape(rank), false};
  while (true) {
    bool slab = false;
    for (std::size_t d = 0; d < rank; ++d) {
      t.tile[d] = grids[d][at[d]];
      slab = slab || (slabs[d] != 0 && t.tile[d] == slabs[d]);
    }
    if (!tile_out_fails(t, spec, target)) {  // the whole output only where it leaves unread image rows out
      if (!slab) out.emplace_back(t);
      if (!spec.serial_only && worthwhile && t.tile != shape) out.emplace_back(TileOut{t.tile, true});
    }
    std::size_t d = rank;
    while (d > 0 && ++at[d - 1] == grids[d - 1].size()) at[--d] = 0;
    if (d == 0) return;
  }
}

void splits(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  if (!accumulates(spec.op)) return;
  if (cp.own) {
    // A conv's taps one at a time, on an accumulator in registers or in L1, filter rows before columns; its
    // channels are to_matmul's K, split by the matmul search, or, accumulating in L1 with one tap left, blocks of
    // its main reduction like any other accumulation in memory (below): each a block of filters for the rows.
    const bool one_tap = cp.g.fh == 1 && cp.g.fw == 1;
    if (!one_tap && cp.padded) {
      // A padded one's taps each over only the outputs that read the image there (split_taps), rows first.
      const SplitTaps t{static_cast<std::uint8_t>(cp.g.pad[0] > 0 ? 0 : 1)};
      if (cp.in_l1 && !split_taps_fails(t, spec, target)) out.emplace_back(t);
      return;
    }
    if (!one_tap) {
      const Split s{1, static_cast<std::uint8_t>(cp.g.fh > 1 ? 1 : 2)};
      if ((cp.in_registers || cp.in_l1) && !split_fails(s, spec, target)) out.emplace_back(s);
      return;
    }
    if (!cp.in_l1) return;
  }
  if (const auto r = reduction_of(spec)) {
    const bool in_memory = !is_register_level(spec.output().level);
    for (std::int64_t k : tile_sizes(r->extent, false, false)) {
      if (in_memory && k < kMinMemorySplit) continue;
      if (!split_fails(Split{k}, spec, target)) out.emplace_back(Split{k});
    }
  }
}

/// The memory levels the target has among GL, L2, L1, slowest first, not slower than `floor`.
std::vector<Level> memory_levels(const Target& target, Level floor) {
  std::vector<Level> out;
  for (Level l : kAllLevels) {
    if (is_register_level(l) || !target.has_level(l)) continue;
    if (!target.has_level(floor) || !target.faster(floor, l)) out.push_back(l);
  }
  return out;
}

void slides(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  if (!cp.led || cp.in_registers || (!cp.padded && cp.g.fh == 1 && cp.g.fw == 1)) return;
  const TensorSpec& img = spec.input(0);
  const std::size_t first = cp.g.row_dim;
  const auto levels = memory_levels(target, img.level);
  for (std::size_t d = first; d < first + 2; ++d) {
    for (std::int64_t size : tile_sizes(spec.output().shape[d], false, true)) {
      for (Level l : levels) {
        Slide s{static_cast<std::uint8_t>(d), size, l, Layout::row_major()};
        if (!slide_fails(s, spec, target)) out.emplace_back(s);
      }
    }
  }
}

void pad_images(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  if (!cp.led || cp.in_registers) return;  // which convs have a buffer to make is pad_image_fails' (2)
  for (Level l : memory_levels(target, spec.input(0).level)) {
    const PadImage p{l, Layout::row_major()};
    if (!pad_image_fails(p, spec, target)) out.emplace_back(p);
  }
}


}  // namespace

bool regular_extent(std::int64_t extent) {
  const auto e = static_cast<std::uint64_t>(extent);
  return std::has_single_bit(e) || (e % 3 == 0 && std::has_single_bit(e / 3));
}

std::vector<std::int64_t> tile_sizes(std::int64_t extent, bool with_extent, bool small_threes) {
  std::vector<std::int64_t> out;
  const bool regular = regular_extent(extent);
  for (std::int64_t p = 1; p < extent; p *= 2) {
    // An irregular extent: powers of two that divide it, and the largest below it (its remainder halves it).
    if (regular || extent % p == 0 || 2 * p >= extent) out.push_back(p);
    const std::int64_t three = p / 2 * 3;  // 3, 6, 12, ... after 2, 4, 8, ...: already in increasing order
    if (p < 2 || three >= extent || three > (small_threes ? kLargestRowThree : kLargestThree)) continue;
    if ((small_threes && three <= kRegisterScaleThrees) || extent % three == 0) out.push_back(three);
  }
  // Rows of 7 * 2^i (7, 14, 28) where they divide the extent: the spatial extents of CNNs (56, 28, 14, 7) in register
  // tiles without a boundary (14x32 tiles of conv res2_3x3's rows: 0.86-0.88x the time of 6x64 ones with 6x64 and
  // 2x64 boundaries, Cascade Lake).
  if (small_threes) {
    for (std::int64_t seven = 7; seven <= kLargestRowSeven && seven < extent; seven *= 2) {
      if (extent % seven == 0) out.insert(std::ranges::upper_bound(out, seven), seven);
    }
  }
  if (with_extent && extent >= 1) out.push_back(extent);
  return out;
}

std::vector<Action> enumerate_actions(const Spec& spec, const Target& target) {
  std::vector<Action> out;
  enumerate_actions(spec, target, out);
  return out;
}

void enumerate_actions(const Spec& spec, const Target& target, std::vector<Action>& out) {
  const QuietReasons quiet;  // only which actions apply
  out.clear();
  const ConvPath cp = conv_path(spec);
  tile_outs(spec, cp, target, out);
  if (batched_matmul(spec)) return;  // one batch element at a time, nothing else
  splits(spec, cp, target, out);
  slides(spec, cp, target, out);
  moves(spec, cp, target, out);
  // A conv accumulates in registers, or in L1 (ConvPath::in_l1; the taps are split there).
  if (!cp.in_memory() && !to_accum_fails(ToAccum{}, spec, target)) out.emplace_back(ToAccum{});
  bufferizes(spec, cp, target, out);
  if (!to_matmul_fails(ToMatmul{}, spec, target)) out.emplace_back(ToMatmul{});
  pad_images(spec, cp, target, out);
  if (!flatten_fails(Flatten{}, spec, target)) out.emplace_back(Flatten{});
  for (KernelKind k : kernels_for(spec, target)) out.emplace_back(Select{k});
}

}  // namespace kriek
