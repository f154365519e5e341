// enumerate_actions: every legal action of a Spec in the documented order (see enumerate.h for the grid).
#include "sched/enumerate.h"

#include <algorithm>
#include <bit>

#include "impl/kernel.h"
#include "sched/bufferize.h"
#include "sched/flatten.h"
#include "sched/move_to.h"
#include "sched/pad_image.h"
#include "sched/select.h"
#include "sched/slide.h"
#include "sched/split.h"
#include "sched/support.h"
#include "sched/tile_out.h"
#include "sched/to_accum.h"
#include "sched/to_matmul.h"
#include "spec/conv_geometry.h"
#include "spec/reasons.h"

namespace kriek {
namespace {

using namespace sched_detail;

/// Where a Spec stands on the conv path (enumerate.h), worked out once per enumeration.
struct ConvPath {
  /// A Conv, or a conv with an elementwise epilogue (a Compose of a Conv, then unary and binary stages: its
  /// output is the conv's and its first two inputs the conv's image and filters), tiled and packed like a conv.
  bool led = false;
  bool own = false;          ///< the Spec is a Conv itself (not a Compose led by one)
  ConvGeometry g;            ///< the (leading) conv's geometry when `led`
  std::size_t row_dims = 0;  ///< batch and rows: tile_out cuts them only to 1 or keeps them whole
  bool padded = false;       ///< the (leading) conv is padded
  /// A Conv whose output is in a register level: the accumulation stage, which only takes taps one at a time,
  /// to_matmul and kernels.
  bool in_registers = false;
  /// A Conv with a 1x1 window and no padding: each run of an output row is a matmul (to_matmul) whose search
  /// tiles its channels and packs its image and output, so the conv stage only cuts rows and columns (output
  /// channels whole) and moves the filters (a packing hoisted above the loop over rows).
  bool pointwise = false;

  /// An unpadded Conv with a window (or one tap of one) whose output is in L1: it may accumulate there
  /// (to_accum), its taps and then its channels one block at a time, so that a block of filters, packed or read
  /// in place, stays in L1 across the output rows below (BLIS's panel of B in L1) instead of coming again from L2
  /// or memory for every row. conv[pad=1] 1x7x7x512 3x3x512x512 as given, 1 thread: 2248 -> 1618 us (its 9.4 MB
  /// of filters were packed into L2 per block of output channels, now per tap and 128 channels into L1, once each,
  /// between the FMAs that use them).
  bool in_l1 = false;

  /// A Conv with its output in memory: it neither splits nor accumulates (registers do both), but in L1 (in_l1).
  bool in_memory() const { return own && !in_registers && !in_l1; }
};

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
  p.in_l1 = spec.output().level == Level::L1 && !p.padded && (!p.pointwise || accumulates(spec.op)) &&
            p.g.batch * p.g.oh > 1;
  return p;
}

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

/// One slab of `extent` per core, floor(extent / cores) in whole `multiple`s, for a parallel loop only: added to
/// the ascending `grid` and returned, so that the serial loop skips it; 0 when it cuts nothing or the grid has it
/// already (a tile both loops take). Rounded down, since a parallel loop's boundary runs after it, on one core:
/// 7 rows in slabs of 4 are one slab and a boundary of 3, all serial (a 7x7 conv's 3x3 on 2 threads: 1783 us); in
/// slabs of 3, two slabs in parallel and one row after them (1170 us). A conv's rows: each core reads the rows of
/// the image that its share of the image copy wrote (res3_3x3 on 2 threads: 643 -> 610 us); a pointwise conv's
/// output channels, in whole vectors: each core keeps its share of the filters (ResNet-50's res4a_branch1 on 2
/// threads, whose rows split made each core stream all 2 MB of filters per row: 1336 -> 684 us); a matmul's rows:
/// a tile of the grid that does not divide them leaves its boundary to run after the parallel loop, on one core
/// (82x99x63 on 2 threads: 4.78 -> 3.70 us in rows of 41; 1000^3 6.80 -> 5.63 ms, its 488-column boundary in rows
/// of 500), and a pipeline's rows alike (compose[matmul, add, relu] 82x99x63: 2-row parallel tiles, 4.46 us; in
/// rows of 41, 3.5 us, level with the matmul alone; its search 7.7 -> 9.9 s, 300k -> 349k Specs).
std::int64_t add_core_slab(std::vector<std::int64_t>& grid, std::int64_t extent, std::int64_t cores,
                           std::int64_t multiple) {
  const std::int64_t slab = extent / cores / multiple * multiple;
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
  // took 212 us (the grid's 512 columns leave 487 to run after the parallel loop, on one core, so the search
  // copied the input in parallel instead), in two slabs of 496 columns 65 us.
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
    if (!is_register_level(l) && target.has_level(l) && (!target.has_level(floor) || !target.faster(floor, l))) out.push_back(l);
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

/// True when a conv's output may move into `level`: into a register level only as one unpadded output row of
/// one image (to_matmul's shape, or a single element for direct_conv), since the register stage neither tiles,
/// slides nor pads.
bool conv_output_may_move(const Spec& spec, const ConvPath& cp, Level level) {
  if (!cp.own || !is_register_level(level) || spec.output().elements() == 1) return true;
  return !cp.padded && cp.g.batch == 1 && cp.g.oh == 1;
}

/// True for a matmul whose rhs (one K x N matrix: a batch of one) is narrower than a register and whose K is at least
/// one register: its columns transposed into L1 (a column-major copy) are dense runs that dot_fma reads in tiles of
/// dots, where a register tile would fill N of each register's lanes. 1 thread: 17x160x3 0.51 -> 0.14 us,
/// 1024x64x2 13.1 -> 2.35 us, 64x64x8 0.77 -> 0.61 us; at 16 columns the register tile is full.
/// Only where a tile of two rows of dots fits the registers with its runs (n <= 10 of 32 AVX-512 registers, n <= 4
/// of AVX2's 16): one row loads a run per FMA and more (AVX2, 96x250x5 in 1x5 tiles: 4.9 us against the register
/// tile's 3.6).
bool narrow_rhs(const Spec& spec, const Target& target) {
  if (!std::holds_alternative<Matmul>(spec.op)) return false;
  const TensorSpec& b = spec.input(1);
  const std::size_t r = b.rank();
  const std::int64_t k = b.shape[r - 2], n = b.shape[r - 1], width = target.vector_elements(b.dtype);
  return b.elements() == k * n && n < width && k >= width && dot_fma_registers(2, n) <= target.vector_registers;
}

/// At most how many of `t`'s lines one set of cache `info` receives, when its runs start at the worst offsets (a
/// power-of-two stride, which a Spec cannot rule out): its runs, each of ceil(lines / sets) lines per set. A run
/// is a row along the innermost dimension; in panels whose rows are whole lines (a blocked layout's), rows follow
/// one another, so a run is the panel's rows along the innermost other dimension.
std::int64_t lines_per_set(const TensorSpec& t, const LevelInfo& info) {
  const std::int64_t bytes = static_cast<std::int64_t>(dtype_bytes(t.dtype));
  const std::int64_t sets = std::max<std::int64_t>(1, info.capacity / (info.line_bytes * info.ways));
  std::int64_t runs = t.runs(), run_lines = (t.run_elements() * bytes + info.line_bytes - 1) / info.line_bytes;
  const std::size_t d = t.layout.dim;
  // A panel row of whole lines (one line, or a tile of whole panels whose rows are several lines: blk1:64 of f32)
  // follows the last, so each panel of the tile is one run.
  const bool blocked = t.layout.kind == Layout::Kind::blocked && t.rank() >= 2 && t.layout.block > 0;
  const std::int64_t block_bytes = blocked ? t.layout.block * bytes : 0;
  if (blocked && (block_bytes == info.line_bytes ||
                  (block_bytes % info.line_bytes == 0 && t.shape[d] % t.layout.block == 0))) {
    const std::size_t inner = d + 1 == t.rank() ? d - 1 : t.rank() - 1;
    const std::int64_t panels = (t.shape[d] + t.layout.block - 1) / t.layout.block;
    run_lines = t.shape[inner] * (block_bytes / info.line_bytes);
    runs = panels * (t.elements() / t.shape[d] / t.shape[inner]);
  }
  return runs * ((run_lines + sets - 1) / sets);
}

void moves(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  // A conv in registers reads its inputs where they are (packing them per register tile repeats the copy).
  if (cp.in_registers) return;
  const bool conv = cp.led;
  // An elementwise op reads each input element once: a copy in another layout only adds its own traffic, so its
  // inputs, and a conv epilogue's (a bias, a shortcut), move into caches as aliases (and into registers) only
  // (compose[conv[pad=1], add, add, relu] 1x14x14x32 3x3x32x32 1x1x1x32 1x14x14x32, whose unfused epilogue over
  // a buffer searched every packing of its bias and shortcut: 135,663 -> 64,607 Specs, the same best cost).
  const auto* pipeline = std::get_if<Compose>(&spec.op);
  const bool elementwise = pipeline ? std::all_of(pipeline->stages.begin(), pipeline->stages.end(), is_elementwise)
                                    : std::holds_alternative<Unary>(spec.op) || std::holds_alternative<Binary>(spec.op);
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    if (i != 1 && cp.pointwise) continue;  // its image and output are the matmul's to move
    const TensorSpec& t = spec.operands[i];
    if (!target.has_level(t.level)) continue;
    const std::uint32_t width = target.vector_elements(t.dtype);
    const bool is_output = i + 1 == spec.operands.size();
    // Caches take an operand in its own layout (an alias); inputs may also be packed row-major or with the
    // innermost dimension blocked into panels of one cache line (Target::panel_elements). Outputs are not packed.
    std::vector<Layout> layouts{t.layout};
    const bool transpose = !conv && i == 1 && narrow_rhs(spec, target);
    // A matmul's lhs is broadcast one element at a time: packed, its rows stay rows (a strided tile copied
    // contiguously in its own placement, MoveTo::copy), not 16-column panels. Panels of R rows lie R lines apart,
    // so a tile's rows in successive panels share L1 sets when R is a multiple of 64: matmul 384x768x3072 (one
    // core), the DP's pick packed 384x256 blocks of A in panels and ran at 67 GFLOP/s; the same tree with the
    // blocks copied row-major at 91 (0.74x the time, alternating), priced alike.
    const bool matmul_lhs = !conv && i == 0 && std::holds_alternative<Matmul>(spec.op);
    const bool epilogue_input = cp.led && !cp.own && i >= 2;
    if (!is_output && !elementwise && !epilogue_input) {
      // A conv packs its image row-major (to_matmul reads its channels as K) and its filters into panels of
      // output channels (oneDNN's Ohwi8o..64o), nothing else.
      const bool panels = t.rank() >= 2 && width > 1;
      if (!(conv && i == 1 && panels)) layouts.push_back(Layout::row_major());
      if (panels && !(conv && i == 0) && !matmul_lhs) {
        layouts.push_back(Layout::blocked(static_cast<std::uint8_t>(t.rank() - 1), target.panel_elements(t.dtype)));
      }
      if (transpose) layouts.push_back(Layout::col_major());
    }
    // Drop layouts that place this shape's elements like an earlier one.
    std::vector<Layout> distinct;
    for (const Layout& l : layouts) {
      bool seen = false;
      for (const Layout& d : distinct) seen |= d.same_placement(l, t.shape);
      if (!seen) distinct.push_back(l);
    }
    const auto op = static_cast<std::uint8_t>(i);
    const std::int64_t l1_bytes = target.has_level(Level::L1) ? target.level(Level::L1).capacity : 0;
    for (const LevelInfo& info : target.levels) {
      const Level l = info.level;
      // A transposing copy may stay within the level (from an alias of the operand in L1 to its columns in L1).
      const bool within =
          transpose && l == t.level && l == Level::L1 && !t.layout.same_placement(Layout::col_major(), t.shape);
      if (!target.faster(l, t.level) && !within) continue;
      if (info.capacity > 0 && t.bytes() > info.capacity) continue;
      // Scalar registers take single elements (vector registers hold the tiles); L2 what L1 cannot hold.
      if (l == Level::RF && t.elements() != 1) continue;
      // A copy of one element goes through a scalar register: loops of those the compilers vectorize (a transposing
      // copy of 1600x3 floats: 0.15 us), loops of one-lane masked vector moves they cannot.
      if (l == Level::VRF && t.elements() == 1 && std::holds_alternative<Move>(spec.op)) continue;
      if (l == Level::L2 && t.bytes() * 2 <= l1_bytes) continue;
      // An output is tiled into L1 or registers where it is computed; a copy in L2 only adds its write-back.
      if (is_output && l == Level::L2) continue;
      if (is_output && !conv_output_may_move(spec, cp, l)) continue;
      if (is_register_level(l)) {
        MoveTo m{op, l, Layout::row_major(), l == Level::VRF ? width : 0u};
        if (!move_to_fails(m, spec, target)) out.emplace_back(m);
        // Rows that end in a partial register stay vectorized in register panels (masked loads and stores).
        if (l == Level::VRF && rows_end_partial(t.shape, width)) {
          m.layout = register_panels(t.rank(), width);
          if (!move_to_fails(m, spec, target)) out.emplace_back(m);
        }
        continue;
      }
      // An alias keeps the operand's rows where they are; the Spec does not know their stride, and rows of a
      // power-of-two stride all fall into the same sets, so a cache keeps at most `ways` of them. Not so for a
      // conv's output tile accumulated in L1 over its taps (in_l1): it is read and stored once per tap and channel
      // block, between hundreds of FMAs, so rows that share sets cost a few reads from L2, where an input re-read
      // by the loops below would thrash. Rows of a panel (a blocked layout's rows of one line each) follow one
      // another (lines_per_set). Counted as rows, conv res5_3x3's filter blocks (1x1x64x64 in four 16-column
      // panels) stayed out of L1; held there for the 49 pixels, the pick took 0.66x the time, res5a_3x3s2's
      // 0.72-0.79x (res4_3x3's 1.04-1.18x until cost model 24 priced the reloads of its output tile per 32
      // channels: its pick of before again). L2 keeps a way free for the lines that pass through it: an alias that
      // fills every way of its sets loses its lines to them before it is read again, and reads them from L3 (the
      // rhs of matmul 1024^3 packed in 16-column panels, 1024x256 of them in L2 at 16 lines a set, 16-way: 0.95x
      // the time in 1024x128 blocks, 1 and 2 threads; in L1, misses cost an L2 read, and 8 panels in 8 ways ran
      // faster than any copy, matmul 128x3072x768).
      const bool accumulated = is_output && cp.own && l == Level::L1;
      const std::int64_t room = l == Level::L2 ? info.ways - 1 : info.ways;
      const bool no_alias = !accumulated && info.ways > 0 && !t.contiguous && lines_per_set(t, info) > room;
      for (const Layout& layout : distinct) {
        if (within && layout.kind != Layout::Kind::col_major) continue;
        if (no_alias && layout.same_placement(t.layout, t.shape)) continue;
        MoveTo m{op, l, layout, 0};
        if (!move_to_fails(m, spec, target)) out.emplace_back(m);
      }
      // The lhs's packing copy (above). Not offered for the other inputs: a matmul's rhs tile of 768x64 copied
      // so (one 256-byte run per k-row, oneDNN's BA16a64b) measured 1.015-1.02x the GFLOP/s of four 16-column
      // panels, but offered for every strided input at L1 and L2 the copies made 300x700x500's search solve
      // 1.48x the Specs in 1.75x the time (only for rhs tiles of 17-64 columns into L2: 1.11x, 1.16x).
      if (matmul_lhs && !t.contiguous) {
        MoveTo m{op, l, t.layout, 0, true};
        if (!move_to_fails(m, spec, target)) out.emplace_back(m);
      }
    }
  }
}

/// The cuts a Compose is offered (1 up to `end`, exclusive) and whether in memory (GL, L1) as well as in registers.
/// On a target with vector registers, an elementwise pipeline only in registers and after its first stage: a
/// register tile of any size fuses its stages, which no buffer in memory beats, and cutting them off one at a time
/// from the front reaches every fused chain once (compose[add, relu] 1x14x14x32 1x1x1x32: 57,729 -> 20,341
/// Specs, the same pick); a conv with an elementwise epilogue after its conv only (the epilogue then fuses among
/// itself), in memory only where its output is contiguous (the whole output or blocks of its rows, before the
/// conv path cuts them into the tiles whose epilogue fuses in registers).
struct Cuts {
  std::size_t end;
  bool memory;
};

Cuts compose_cuts(const Spec& spec, const Compose& c, const ConvPath& cp, const Target& target) {
  if (!target.has_level(Level::VRF)) return {c.stages.size(), true};
  if (std::all_of(c.stages.begin(), c.stages.end(), is_elementwise)) return {2, false};
  if (cp.led) return {2, spec.output().contiguous};
  return {c.stages.size(), true};
}

void bufferizes(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  const auto* c = std::get_if<Compose>(&spec.op);
  if (c == nullptr) return;
  const auto [cuts, memory_buffers] = compose_cuts(spec, *c, cp, target);
  for (std::size_t cut = 1; cut < cuts; ++cut) {
    for (Level l : {Level::GL, Level::L1, Level::VRF}) {
      if (!memory_buffers && !is_register_level(l)) continue;
      Bufferize b{static_cast<std::uint8_t>(cut), l, Layout::row_major()};
      if (!bufferize_fails(b, spec, target)) out.emplace_back(b);
    }
    // An intermediate whose rows end in a partial register: a register tile in panels.
    const Shape mid = bufferize_intermediate(*c, spec, cut);
    const std::uint32_t width = target.vector_elements(spec.output().dtype);
    if (!target.has_level(Level::VRF) || !rows_end_partial(mid, width)) continue;
    const Bufferize panels{static_cast<std::uint8_t>(cut), Level::VRF, register_panels(mid.size(), width)};
    if (!bufferize_fails(panels, spec, target)) out.emplace_back(panels);
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
