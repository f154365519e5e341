// move_to and bufferize actions of enumerate_actions (enumerate.h, steps 4 and 6): which operands move to which
// levels in which layouts, and where a Compose is cut with a buffer, with the measurements behind each rule.
#include <algorithm>

#include "impl/kernel.h"
#include "impl/tiling.h"
#include "sched/bufferize.h"
#include "sched/enumerate.h"
#include "sched/enumerate_detail.h"
#include "sched/move_to.h"

namespace kriek::sched_detail {
namespace {

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

/// The cuts a Compose is offered (1 up to `end`, exclusive) and whether in memory (GL, L1) as well as in registers.
/// On a target with vector registers, an elementwise pipeline only in registers and after its first stage: a
/// register tile of any size fuses its stages, which no buffer in memory beats, and cutting them off one at a time
/// from the front reaches every fused chain once (compose[add, relu] 1x14x14x32 1x1x1x32: 57,729 -> 20,341
/// Specs, the same pick); a conv with an elementwise epilogue after its conv only (the epilogue then fuses among
/// itself), in memory only where its output is contiguous (the whole output or blocks of its rows, before the
/// conv path cuts them into the tiles whose epilogue fuses in registers), and a padded conv's in L1 on any tile:
/// the conv accumulates its tile there over its taps (split_taps) and the epilogue reads it back at once
/// (compose[conv[pad=1], add, add, relu] 1x7x7x512 3x3x512x512, 2 threads, in tiles of 64 channels: 0.950-0.981x
/// the time of the whole output buffered in memory, REPL `compare`; 1x14x14x256 in tiles of 32: 0.975-1.000x).
struct Cuts {
  std::size_t end;
  bool memory;
  bool l1 = memory;
};

Cuts compose_cuts(const Spec& spec, const Compose& c, const ConvPath& cp, const Target& target) {
  if (!target.has_level(Level::VRF)) return {c.stages.size(), true};
  if (elementwise_op(spec.op)) return {2, false};
  if (cp.led) return {2, spec.output().contiguous, spec.output().contiguous || cp.padded};
  return {c.stages.size(), true};
}

/// True when a conv's output may move into `level`: into a register level only as one unpadded output row of
/// one image (to_matmul's shape, or a single element for direct_conv), since the register stage neither tiles,
/// slides nor pads.
bool conv_output_may_move(const Spec& spec, const ConvPath& cp, Level level) {
  if (!cp.own || !is_register_level(level) || spec.output().elements() == 1) return true;
  return !cp.padded && cp.g.batch == 1 && cp.g.oh == 1;
}

}  // namespace

void moves(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  // A conv in registers reads its inputs where they are (packing them per register tile repeats the copy).
  if (cp.in_registers) return;
  const bool conv = cp.led;
  // An elementwise op reads each input element once: a copy in another layout only adds its own traffic, so its
  // inputs, and a conv epilogue's (a bias, a shortcut), move into caches as aliases (and into registers) only
  // (compose[conv[pad=1], add, add, relu] 1x14x14x32 3x3x32x32 1x1x1x32 1x14x14x32, whose unfused epilogue over
  // a buffer searched every packing of its bias and shortcut: 135,663 -> 64,607 Specs, the same best cost).
  const bool elementwise = elementwise_op(spec.op);
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
      if (l == Level::L2 && t.bytes() <= kL2StagingMin) continue;
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

void bufferizes(const Spec& spec, const ConvPath& cp, const Target& target, std::vector<Action>& out) {
  const auto* c = std::get_if<Compose>(&spec.op);
  if (c == nullptr) return;
  const auto [cuts, memory_buffers, l1_buffers] = compose_cuts(spec, *c, cp, target);
  for (std::size_t cut = 1; cut < cuts; ++cut) {
    for (Level l : {Level::GL, Level::L1, Level::VRF}) {
      if (!(l == Level::L1 ? l1_buffers : memory_buffers) && !is_register_level(l)) continue;
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

}  // namespace kriek::sched_detail
