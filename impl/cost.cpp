// The cost formulas of every node kind and kernel, and whole-tree evaluation.
#include "impl/cost.h"

#include <algorithm>
#include <bit>

#include "impl/team.h"
#include "impl/tiling.h"
#include "spec/error.h"
#include "spec/overloaded.h"
#include "spec/stable_hash.h"

namespace kriek {
namespace {

constexpr std::int64_t kLine = 64;

Cost access(const CostModel& m, const TensorSpec& t) { return m.element_access[static_cast<std::size_t>(t.level)]; }

/// Elements of `d` per vector register (1 on scalar targets, so vector counts stay defined).
std::int64_t vector_width(const Target& target, Dtype d) {
  return std::max<std::int64_t>(1, target.vector_elements(d));
}

/// Registers one row of a matmul's register tile `c` takes: ceil(n / vs), the last partial in register panels.
std::int64_t row_registers(const Target& target, const TensorSpec& c) {
  const std::int64_t vs = vector_width(target, c.dtype);
  return (c.shape.back() + vs - 1) / vs;
}

/// Lines a kernel streams in from `t` when it reads it beyond L1 (0 from L1 and registers), each costing its
/// transfer plus `per_line_extra`.
Cost stream_cost(const CostModel& m, const TensorSpec& t, Cost per_line_extra = 0) {
  if (is_register_level(t.level) || t.level == Level::L1) return 0;
  return static_cast<Cost>(lines_touched(t)) * (m.line_from[static_cast<std::size_t>(t.level)] + per_line_extra);
}

/// A kernel of dependent vector adds (or FMAs): its port work and the lines it streams overlap (the loads run
/// ahead of the arithmetic), but the time its chains wait on latency beyond the port work adds to both: the
/// waiting adds hold the reorder window, so neither the loads nor the stream advance meanwhile.
Cost chained(Cost ports, Cost stream, Cost latency) {
  return std::max(ports, stream) + (latency > ports ? latency - ports : 0);
}

/// `sums` sums (dot_fma's dots, vec_sum_run's row) over `steps` register-sized steps of dense runs: each step one
/// vector op of cost `op` per sum and `loads` loads in all, beside `stream` (lines from beyond L1); each sum in
/// dot_fma_chains accumulator chains, then its chains summed (chains - 1 adds), its lanes summed (log2(vs) steps of a
/// shuffle and an add each, the shuffles on one port; or a register of sums at a time in a transpose tree,
/// dot_fma_tree) and the scalar add into the output. The chains' latency is not charged: the calls of a loop sum other
/// runs (a tile's dots, a reduction's rows), whose chains the core overlaps with the next call's. 17x160x3 as 51
/// dots of 10 steps: about 12 cycles each, where their latency (two chains of 5 FMAs, then the lanes) is 30.
Cost chained_sum_cost(const CostModel& m, std::int64_t vs, Cost steps, Cost sums, Cost op, Cost loads, Cost stream) {
  const auto n = static_cast<std::int64_t>(sums);
  const Cost chains = static_cast<Cost>(dot_fma_chains(n, static_cast<std::int64_t>(steps)));
  const Cost lane_steps = static_cast<Cost>(std::bit_width(static_cast<std::uint64_t>(vs)) - 1);
  const Cost per_sum = (chains - 1) * m.vector_op + m.scalar_op;
  // A register of sums in a transpose tree (vs - 1 steps of a shuffle, a blend and an add), or each sum's lanes.
  const Cost trees = static_cast<Cost>((n + vs - 1) / vs);
  const Cost lanes = dot_fma_tree(n, vs) ? trees * 3 * static_cast<Cost>(vs - 1) * m.vector_op
                                         : sums * 2 * lane_steps * m.vector_op;
  return std::max({steps * sums * op, steps * loads * m.vector_load, stream}) + sums * per_sum + lanes;
}

/// Cost of one kernel call on its Spec's operands.
Cost kernel_cost(KernelKind k, const Spec& spec, const Target& target, const CostModel& m) {
  const TensorSpec& out = spec.output();
  switch (k) {
    case KernelKind::scalar_mult_add:
    case KernelKind::scalar_unary:
    case KernelKind::scalar_binary:
    case KernelKind::scalar_reduce_add: {
      Cost c = m.scalar_op;
      for (const TensorSpec& in : spec.inputs()) c += access(m, in);
      return c;
    }
    case KernelKind::direct_conv: {
      // One multiply-add per window element, each reading an image and a filter element.
      const Cost macs = static_cast<Cost>(spec.input(1).elements());
      return macs * (m.scalar_op + access(m, spec.input(0)) + access(m, spec.input(1)));
    }
    case KernelKind::scalar_copy:
      // A load or a store (several per cycle), not an ALU op.
      return m.scalar_op / 4 + access(m, spec.input(0)) + access(m, out);
    case KernelKind::scalar_zero:
      return m.scalar_op / 2;
    case KernelKind::vec_load: {
      // From L1 only a load-port slot, which the kernels that read the register (bcast_fma) account for; from a
      // slower level the lines it brings in.
      const TensorSpec& src = spec.input(0);
      const Cost lines = src.aligned ? 1 : 2;
      return src.level == Level::L1 ? 0 : m.vector_load + lines * m.line_from[static_cast<std::size_t>(src.level)];
    }
    case KernelKind::vec_store: {
      // A row's partial last register takes partial_register_stores' stores.
      const TensorSpec& reg = spec.input(0);
      const std::int64_t vs = vector_width(target, out.dtype);
      const Cost stores =
          reg.elements() < vs ? partial_register_stores(reg.elements(), target.isa == Isa::avx512).size() : 1;
      const Cost lines = out.aligned ? 1 : 2;
      return stores * m.vector_store +
             (out.level == Level::L1 ? 0 : lines * m.line_from[static_cast<std::size_t>(out.level)]);
    }
    case KernelKind::vec_zero:
    case KernelKind::vec_unary:
      return m.vector_op;
    case KernelKind::vec_binary: {
      // A broadcast input is one element read from memory.
      Cost c = m.vector_op;
      for (const TensorSpec& in : spec.inputs()) c += access(m, in);
      return c;
    }
    case KernelKind::dot_fma: {
      // k/vs steps of an FMA per dot and a load per run (m rows, n columns); operands beyond L1 stream their lines
      // beside the ports; an output in memory is read and written once per dot.
      const TensorSpec& a = spec.input(0);
      const std::size_t r = a.rank();
      const std::int64_t vs = vector_width(target, out.dtype);
      const Cost rows = static_cast<Cost>(a.shape[r - 2]), cols = static_cast<Cost>(spec.input(1).shape[r - 1]);
      const Cost steps = static_cast<Cost>((a.shape[r - 1] + vs - 1) / vs);  // a partial last register masked
      return chained_sum_cost(m, vs, steps, rows * cols, m.vector_fma, rows + cols,
                              stream_cost(m, a) + stream_cost(m, spec.input(1))) +
             rows * cols * 2 * access(m, out);
    }
    case KernelKind::vec_sum_run: {
      // k/vs vector adds, each with one load.
      const std::int64_t vs = vector_width(target, out.dtype);
      const Cost adds = static_cast<Cost>(spec.input(0).elements() / vs);
      return chained_sum_cost(m, vs, adds, 1, m.vector_op, 1, stream_cost(m, spec.input(0)));
    }
    case KernelKind::vec_sum_rows: {
      // k steps along the axis, each adding one loaded register into every output register: the adds and loads
      // share their ports, lines stream beside; the steps alternate between sum_rows_sets accumulator sets, whose
      // chains of k/sets dependent adds take that many latencies, and the sets are added into the output at the
      // end. A register panel's partial last register is a whole add.
      const std::int64_t k = spec.input(0).shape[std::get<ReduceSum>(spec.op).axis];
      const std::int64_t registers = registers_of(out);
      const std::int64_t sets = sum_rows_sets(registers, k);
      const Cost adds = static_cast<Cost>(k * registers);
      const Cost combine = static_cast<Cost>((sets - 1) * registers) * m.vector_op;
      return chained(std::max(adds * m.vector_op, adds * m.vector_load), stream_cost(m, spec.input(0)),
                     static_cast<Cost>((k + sets - 1) / sets) * m.fma_latency) +
             combine;
    }
    case KernelKind::vec_sum_runs: {
      // vs rows of ceil(k/vs) vector adds each (a row's partial last register loaded masked), one load per add, in
      // vs independent chains; then the transpose of the rows' sums into one register: vs - 1 pairwise
      // combinations of two shuffles and an add, and the add into the output. Rows of 16 registers or more read
      // from L2 go two at a time with 8 chains each (codegen's sum_runs_chains: fewer rows in flight stream
      // faster), 7 more adds a row beside a stream that takes longer: priced alike.
      const std::int64_t vs = vector_width(target, out.dtype);
      const std::int64_t k = spec.input(0).shape[std::get<ReduceSum>(spec.op).axis];
      const Cost steps = static_cast<Cost>((k + vs - 1) / vs);
      const Cost adds = steps * static_cast<Cost>(spec.input(0).elements() / k);
      const Cost transpose = static_cast<Cost>(3 * (vs - 1) + 1) * m.vector_op;
      return chained(std::max(adds * m.vector_op, adds * m.vector_load), stream_cost(m, spec.input(0)),
                     steps * m.fma_latency) +
             transpose;
    }
    case KernelKind::bcast_fma: {
      // One k-step of a register tile: m broadcasts of the lhs and the n/vs register loads of the rhs row share
      // the load ports, the m*n/vs FMAs the FMA ports, and the two overlap, so the kernel costs the larger of the
      // two and a part of the other (below; and at least one FMA latency). The rhs loads are counted here even
      // when the row was loaded once for several calls, so a register load from L1 (vec_load) costs nothing of
      // its own; the rhs may also be read from memory by the kernel itself.
      // A row of n elements takes ceil(n/vs) registers (register panels end a row in a partial one).
      const Cost rhs_loads = static_cast<Cost>(row_registers(target, out));
      const Cost rows = static_cast<Cost>(spec.input(0).elements());
      const Cost fmas = rows * rhs_loads;
      const Cost a_reads = spec.input(0).level == Level::L1 ? 0 : rows * access(m, spec.input(0));
      // A rhs row read from L2 streams its lines in (the prefetchers keep them coming while the FMAs run): a
      // third resource beside the two ports, each line also taking an L1 slot of the load ports to be filled
      // (a 3x128 tile streams twice the lines per FMA of a 6x64 one; priced alike without the fills, it ran
      // 17% slower: 160 vs 191 GFLOP/s, matmul 784x512x128 with the rhs packed in L2, Sapphire Rapids). From
      // main memory (L3 and beyond, shared by the cores and far slower) the stream does not hide behind the
      // FMAs: its time adds.
      // An unaligned rhs row from L2 (a row of a matrix whose rows are not whole lines, read in place) does not
      // stream: its register loads straddle lines, and the time of the line it reaches into adds. On a Cascade
      // Lake VM, one core, matmul N^3 with B read in place against packed (6x64 tiles, the same but for B):
      // N = 257 1.31x, 260 1.47x the time, but 264 (rows 32 bytes off) 1.035x and the aligned 256, 272 1.005x
      // and 1.037x. Priced so, the DP packs such B: 300x700x500 0.59-0.75x the time, 1200x96x1500 0.57x.
      const TensorSpec& rhs = spec.input(1);
      const bool far = rhs.level == Level::GL;
      const Cost stream = stream_cost(m, rhs, rhs.level == Level::L2 ? m.vector_load : 0);
      const bool split = rhs.level == Level::L2 && !rhs.aligned;
      const Cost split_line = split ? m.line_from[static_cast<std::size_t>(Level::L2)] + m.vector_load : 0;
      // The three overlap only in part: an eighth of the ports that do not bound the k-step adds (cost model 23:
      // conv res2_3x3's 24x16 tiles, 25 loads per 24 FMAs, took 1.12x the time of 14x32 ones, where a full overlap
      // priced them alike; its picks so against the old ones, one process, alternating: matmul 64^3 0.78x the
      // time, 99x36x67 0.79x, conv 1x56x56x64 1x1x64x256 0.83x), and CostModel::stream_overlap_eighths of the
      // stream: none since cost model 26 (an eighth of it made matmul 384x3072x768 take 12x32 tiles, 2 lines and 16
      // loads per 28 FMAs, over 6x64 ones, 4 lines and 10 loads per 24, and run 1.12-1.19x their time).
      // A k-step waits at least one FMA latency (its ports idle meanwhile).
      // A register tile one register wide broadcasts each float for one FMA: as its memory operand
      // (vector_broadcast_operand). A column of a wider tile (a strided view of it) shares each row's broadcast
      // with the other columns' calls (tile_out precondition 8): into a register. Priced as operands, the DP cut
      // res4_3x3's 8x32 tiles into two 8x16 calls per k-step, 1.2-1.3x the time on the Zen 4 VM.
      const Cost broadcast = rhs_loads == 1 && out.contiguous ? m.vector_broadcast_operand : m.vector_broadcast;
      const Cost ports = fmas * m.vector_fma, loads = rows * broadcast + rhs_loads * m.vector_load;
      const Cost beside = far ? 0 : stream;
      const Cost busiest = std::max({ports, loads, beside});
      const Cost partial = beside == busiest ? ports + loads + beside - busiest
                                             : ports + loads - busiest + beside * m.stream_overlap_eighths;
      const Cost overlapped = busiest + partial / 8;
      return std::max(overlapped, m.fma_latency) + (far ? stream : 0) + split_line + a_reads;
    }
  }
  KRIEK_ASSERT(false, "unknown kernel");
  return 0;
}

/// Vector registers a kernel needs beside its operands: bcast_fma's broadcast, and the rhs row when it reads it
/// from memory. They count in the VRF peak, so a register tile leaves room for them.
std::int64_t scratch_registers(KernelKind k, const Spec& spec, const Target& target) {
  if (k != KernelKind::bcast_fma) return 0;
  return 1 + (spec.input(1).level == Level::VRF ? 0 : row_registers(target, spec.output()));
}

/// True when `op` is a matmul or a conv, or a pipeline with one: a Spec with a rhs it reads row by row along a
/// reduction that its Impls loop over.
bool contracts(const Op& op) {
  const auto one = [](const PrimitiveOp& p) {
    return std::holds_alternative<Matmul>(p) || std::holds_alternative<Conv>(p);
  };
  if (const auto* c = std::get_if<Compose>(&op)) return std::ranges::any_of(c->stages, one);
  return std::holds_alternative<Matmul>(op) || std::holds_alternative<Conv>(op);
}

/// Bytes of straight-line code one run of `body` takes when a loop unrolls it (about 8 per instruction): the kernels
/// of a reduction, an elementwise op or a copy walk every register of their operands (a load or store each) with
/// an op per register of the largest. A matmul's or conv's body loops over its reduction (a rolled split), so its
/// code does not grow with the body's size: counted as none.
std::int64_t unrolled_code_bytes(const Spec& body, const Target& target) {
  constexpr std::int64_t kBytesPerInstruction = 8;
  if (contracts(body.op)) return 0;
  std::int64_t all = 0, largest = 0;
  for (const TensorSpec& t : body.operands) {
    const std::int64_t vs = vector_width(target, t.dtype);
    const std::int64_t registers = (t.elements() + vs - 1) / vs;
    all += registers;
    largest = std::max(largest, registers);
  }
  return (all + largest) * kBytesPerInstruction;
}

/// What one run of `loop` pays for code beyond the instruction cache: the loop unrolled over register-held
/// operands (`unrolled`: unrolled_axes) repeats its body's straight-line code once per unrolled iteration, and the
/// part beyond CostModel::code_cache_bytes comes from L2, a line at a time, on every run.
Cost code_fetch_cost(const Loop& loop, const std::vector<bool>& unrolled, const Spec& body, const Target& target,
                     const CostModel& m) {
  std::int64_t copies = 1;
  for (std::size_t a = 0; a < loop.axes.size(); ++a) {
    if (unrolled[a]) copies *= loop.axes[a].trips();
  }
  if (copies == 1) return 0;
  const std::int64_t bytes = copies * unrolled_code_bytes(body, target);
  const auto budget = static_cast<std::int64_t>(m.code_cache_bytes);
  if (bytes <= budget) return 0;
  return static_cast<Cost>((bytes - budget + kLine - 1) / kLine) * m.line_from[static_cast<std::size_t>(Level::L2)];
}

/// True when a tile of shape `tile` of `whole` is cut along the outermost dimension that has more than one element.
bool cuts_outermost(const Shape& whole, const Shape& tile) {
  for (std::size_t d = 0; d < whole.size(); ++d) {
    if (whole[d] > 1) return tile[d] < whole[d];
  }
  return false;
}

/// What each of `ways` cores pays to read all of `t` when the others wrote (ways - 1) / ways of its lines.
Cost cross_core(const TensorSpec& t, Cost ways, const CostModel& m) {
  return static_cast<Cost>(lines_touched(t)) * (ways - 1) / ways * m.cross_core_line;
}

/// True when one run of `body` keeps the FMA ports busy for at least four loop iterations' time, its inputs in L1
/// or registers, or (CostModel::streamed_rows_hide_iteration) its rhs a run of two lines or more of one sequential
/// stream from L2 (the loop's `loop_spec` rhs contiguous): the loop's index update and branch run on other ports.
bool hides_iteration(const Spec& loop_spec, const Spec& body, const Target& target, const CostModel& m) {
  const bool one_stream = m.streamed_rows_hide_iteration != 0 && contracts(body.op) && loop_spec.input(1).contiguous;
  for (std::size_t i = 0; i < body.input_count(); ++i) {
    const TensorSpec& in = body.input(i);
    const bool streamed = one_stream && i == 1 && in.level == Level::L2 && in.contiguous && in.bytes() >= 2 * kLine;
    if (in.level != Level::L1 && !is_register_level(in.level) && !streamed) return false;
  }
  const std::int64_t lanes = vector_width(target, body.output().dtype);
  const double fmas = flop_count(body, lanes) / static_cast<double>(2 * lanes);
  return fmas * static_cast<double>(m.vector_fma) >= 4.0 * static_cast<double>(m.loop_iteration);
}

NodeCost loop_cost(const Spec& spec, std::span<const Spec> children, const Loop& loop, const Target& target,
                   const CostModel& m) {
  NodeCost nc;
  Cost trips = 1;
  for (const LoopAxis& a : loop.axes) trips *= static_cast<Cost>(a.trips());
  // A parallel loop's team trips, boundary trips included, are cut into one range per core: it takes as long as
  // its first range, the longest (team_share_runs). 257 rows in two tiles of 129 (the second 128) run on both
  // cores at once, where a boundary after the full tiles ran on one core alone.
  const std::vector<bool> unrolled = unrolled_axes(spec, loop);
  const TeamAxes team = team_axes(loop, unrolled);
  const Cost ways = team.empty() ? 1 : std::min<Cost>(m.cores, static_cast<Cost>(team_trips(loop, team)));
  for (std::uint32_t mask : loop.body_masks) {
    nc.weights.push_back(static_cast<Cost>(team_share_runs(loop, team, static_cast<std::int64_t>(ways), mask)));
  }
  // Unrolled axes (unrolled_axes) cost no iterations; the others pay loop_iteration per iteration of their nest.
  Cost iterations = 1;
  bool any_rolled = false;
  for (std::size_t a = 0; a < loop.axes.size(); ++a) {
    if (unrolled[a]) continue;
    iterations *= static_cast<Cost>(loop.axes[a].trips());
    any_rolled = true;
  }
  // A body of single elements (a scalar copy or operation) is a few instructions, and the compilers unroll (or
  // vectorize) such innermost loops: a quarter of an iteration each. A transposing copy of 1600x3 floats, a
  // loop of one-element copies, takes 0.15 us, 0.12 cycles per element.
  const auto one_element = [](const TensorSpec& t) { return t.elements() == 1; };
  const bool scalar_body = !children.empty() && std::ranges::all_of(children.front().operands, one_element);
  const bool hidden = !children.empty() && hides_iteration(spec, children.front(), target, m);
  const Cost per_iteration = scalar_body || hidden ? m.loop_iteration / 4 : m.loop_iteration;
  nc.base = (any_rolled ? (iterations + ways - 1) / ways * per_iteration : 0) +
            (ways > 1 ? m.parallel_launch : 0);
  if (!children.empty()) nc.base += code_fetch_cost(loop, unrolled, children.front(), target, m);
  // A buffer the team wrote (TensorSpec::shared) is spread over the cores' caches the way its writers cut it, in
  // contiguous ranges of its outermost dimension (a parallel loop's static ranges of row-major tiles). A loop that
  // cuts it the same way reads mostly what its own core wrote; one that reads all of it, or cuts it only along
  // inner dimensions, reads (cores - 1) / cores of it from the other cores. conv1 on 2 threads, its output channels
  // split: each core reads the whole padded image, 778 us; its output rows split, 610 us. conv
  // 1x28x28x512 1x1x512x128 packed: its filters copied into L2 rows by both cores, then read whole by both, 298 us;
  // read where they are through L2 (the caller's, unchanged between calls, stay in each core's cache), 262 us.
  if (loop.parallel && ways > 1 && !children.empty()) {
    for (std::size_t i = 0; i < spec.input_count(); ++i) {
      const TensorSpec& t = spec.operands[i];
      if (t.shared && !cuts_outermost(t.shape, children.front().operands[i].shape)) nc.base += cross_core(t, ways, m);
    }
  }
  if (loop.window) {
    // The window buffer: loaded whole once, then only its new part each step; the overlap shifts in place. (A
    // padded image's border in the window is zeroed rather than loaded, priced alike.)
    KRIEK_ASSERT(!children.empty(), "a slide loop has a body");
    const std::size_t w = loop.window->operand;
    const TensorSpec& src = spec.operands[w];
    const TensorSpec& win = children.front().operands[w];
    const std::size_t dim = window_dim(loop);
    const std::int64_t rows_per_step = loop.axes.front().tile * loop.operands[w][dim].step;
    const std::int64_t window_rows = win.shape[dim] > 0 ? win.shape[dim] : 1;
    const Cost first = static_cast<Cost>(lines_touched(win));
    const Cost step_lines = first * static_cast<Cost>(std::min(rows_per_step, window_rows)) /
                            static_cast<Cost>(window_rows);
    const Cost per_line = m.line_from[static_cast<std::size_t>(src.level)] + m.vector_load + m.vector_store;
    nc.base += first * per_line + (trips - 1) * (step_lines * per_line + (first - step_lines) * m.vector_store);
    nc.own[loop.window->level] += win.bytes();
  }
  return nc;
}

NodeCost move_cost(const Spec& spec, std::size_t children, const MoveOp& move, const CostModel& m) {
  NodeCost nc;
  nc.weights.assign(children, 1);
  const TensorSpec& src = spec.operands[move.operand];
  const bool output = static_cast<std::size_t>(move.operand) + 1 == spec.operands.size();
  if (move.alias) {
    const Cost lines = static_cast<Cost>(lines_touched(src));
    Cost per_line = m.line_from[static_cast<std::size_t>(src.level)];
    if (!src.contiguous) per_line += per_line * m.strided_percent / 100;
    // The output's lines also go back: each is read (for ownership, or to accumulate) and written back to the
    // level it came from (CostModel::output_return_percent). Priced one way, matmul 384x768x3072 (one core) split
    // K in 128 and reloaded its 4.7 MB output six times from L3: 1.36x the time of keeping the whole K per output
    // tile, priced 2.1% cheaper.
    if (output) per_line += per_line * m.output_return_percent / 100;
    nc.base = lines * per_line;
    nc.own[move.dest.level] = lines_touched(src) * kLine;
  } else {
    // One scalar in RF is a local the compiler keeps in a register: nothing to set up.
    nc.base = move.dest.level == Level::RF ? 0 : m.buffer_setup;
    nc.own[move.dest.level] = move.dest.bytes();
    // An output tile read back into registers from L1 (an accumulator reloaded per block of the reduction) takes a
    // load slot per register, which no kernel counts (vec_load from L1 is free: bcast_fma counts the rhs rows'
    // loads). Unpriced, conv res4_3x3 reloaded its 14x32 tile per 32 channels of filters held in L1 and took
    // 1.04-1.18x the time of streaming them from L2 into a tile kept over all 2304.
    if (output && move.load && move.dest.level == Level::VRF && src.level == Level::L1 && move.dest.vector_size > 0) {
      nc.base += static_cast<Cost>(registers_of(move.dest)) * m.vector_load;
    }
  }
  return nc;
}

}  // namespace

CostModel CostModel::for_target(const Target& target) {
  CostModel m;
  m.cores = static_cast<std::uint32_t>(target.cores);
  if (target.isa == Isa::scalar) {
    m.vector_fma = m.vector_load = m.vector_broadcast = m.vector_broadcast_operand = m.vector_store = m.vector_op = 0;
  }
  if (target.profile) m.apply_profile(*target.profile, target);
  return m;
}

std::uint64_t CostModel::fingerprint() const {
  StableHasher h;
  h.add(version);
  for (Cost c : line_from) h.add(static_cast<std::uint64_t>(c));
  for (Cost c : element_access) h.add(static_cast<std::uint64_t>(c));
  for (Cost c : {strided_percent, loop_iteration, parallel_launch, Cost(cores), cross_core_line, vector_fma,
                 fma_latency, vector_load, vector_broadcast, vector_broadcast_operand, vector_store, vector_op,
                 scalar_op, buffer_setup, output_return_percent, stream_overlap_eighths, code_cache_bytes,
                 streamed_rows_hide_iteration}) {
    h.add(static_cast<std::uint64_t>(c));
  }
  return h.value();
}

std::int64_t lines_touched(const TensorSpec& t) {
  const std::int64_t bytes = static_cast<std::int64_t>(dtype_bytes(t.dtype));
  if (t.contiguous) return (t.bytes() + kLine - 1) / kLine + (t.aligned ? 0 : 1);
  return t.runs() * ((t.run_elements() * bytes + kLine - 1) / kLine + (t.aligned ? 0 : 1));
}

namespace {

/// Children that each run once, one after another, and nothing of the node's own.
NodeCost in_sequence(std::size_t children) {
  NodeCost nc;
  nc.weights.assign(children, 1);
  return nc;
}

/// The same around a buffer of the node's own (a pipeline's intermediate, a padded image).
NodeCost with_buffer(std::size_t children, const TensorSpec& buffer, const CostModel& m) {
  NodeCost nc = in_sequence(children);
  nc.base = m.buffer_setup;
  nc.own[buffer.level] = buffer.bytes();
  return nc;
}

}  // namespace

NodeCost node_cost(const Spec& spec, const NodeKind& kind, std::span<const Spec> children, const Target& target,
                   const CostModel& m) {
  return std::visit(overloaded{[&](const Loop& loop) { return loop_cost(spec, children, loop, target, m); },
                               [&](const MoveOp& move) { return move_cost(spec, children.size(), move, m); },
                               [&](const Block&) { return in_sequence(children.size()); },
                               [&](const Pipeline& p) { return with_buffer(children.size(), p.buffer, m); },
                               // Views only: the matmul's cost.
                               [&](const Reshape&) { return in_sequence(children.size()); },
                               [&](const PadOp& p) { return with_buffer(children.size(), p.buffer, m); },
                               // Views only: the taps' costs.
                               [&](const TapSplit&) { return in_sequence(children.size()); },
                               [&](const KernelCall& k) {
                                 NodeCost nc;
                                 nc.base = kernel_cost(k.kernel, spec, target, m);
                                 nc.own[Level::VRF] = scratch_registers(k.kernel, spec, target) * target.vector_bytes;
                                 return nc;
                               },
                               [&](const Hole&) { return NodeCost{}; }},
                    kind);
}

NodeCost node_cost(const ImplNode& node, const Target& target, const CostModel& m) {
  std::vector<Spec> children;
  children.reserve(node.children.size());
  for (const ImplPtr& c : node.children) children.push_back(c->spec);
  return node_cost(node.spec, node.kind, children, target, m);
}

namespace {

/// Walks `node` in hole order with `around` the own memory of its ancestors; true once hole `index` is found (then
/// `around` holds the memory around it).
bool find_hole(const ImplPtr& node, std::size_t& index, MemoryUse& around, const Target& target,
               const CostModel& m) {
  if (node->is_hole()) return index-- == 0;
  const MemoryUse outer = around;
  around = around.plus(node_cost(*node, target, m).own);
  for (std::size_t i : child_print_order(*node)) {
    if (find_hole(node->children[i], index, around, target, m)) return true;
  }
  around = outer;
  return false;
}

}  // namespace

MemoryUse memory_around_hole(const ImplPtr& root, std::size_t index, const Target& target, const CostModel& model) {
  MemoryUse around;
  std::size_t left = index;
  const bool found = find_hole(root, left, around, target, model);
  KRIEK_ASSERT(found, "no hole ", index, " in the tree");
  return around;
}

ImplCost evaluate(const ImplPtr& impl, const Target& target, const CostModel& m) {
  const NodeCost nc = node_cost(*impl, target, m);
  ImplCost result{nc.base, {}};
  MemoryUse children_peak;
  for (std::size_t i = 0; i < impl->children.size(); ++i) {
    const ImplCost c = evaluate(impl->children[i], target, m);
    result.cost += nc.weights[i] * c.cost;
    children_peak = children_peak.max(c.peak);
  }
  result.peak = nc.own.plus(children_peak);
  return result;
}

}  // namespace kriek
