// The cost of one kernel call: port work, loads and the lines it streams from beyond L1, per kernel kind (the
// cost model's leaves; impl/cost.cpp prices the nodes above them), and the shape of their code that both the cost
// and codegen follow (accumulator chains, sets and partial stores).
#include "impl/kernel_cost.h"

#include <algorithm>
#include <bit>

#include "impl/kernel.h"
#include "impl/tiling.h"
#include "spec/error.h"

namespace kriek {

std::int64_t vector_width(const Target& target, Dtype d) {
  return std::max<std::int64_t>(1, target.vector_elements(d));
}

// The code shape of kernels (impl/kernel.h), which their cost here and their emission in codegen both follow.

std::int64_t dot_chains(std::int64_t vectors) {
  for (std::int64_t c : {8, 4, 2}) {
    if (vectors % c == 0) return c;
  }
  return 1;
}

std::int64_t dot_fma_chains(std::int64_t dots, std::int64_t vectors) { return dots == 1 ? dot_chains(vectors) : 1; }

bool dot_fma_tree(std::int64_t dots, std::int64_t width) { return dots > 1 && 2 * dots >= width; }

std::int64_t sum_rows_sets(std::int64_t registers, std::int64_t steps) {
  KRIEK_ASSERT(registers > 0 && steps > 0, "sum_rows_sets of ", registers, " registers, ", steps, " steps");
  constexpr std::int64_t kInFlight = 8, kMostRegisters = 24;
  const std::int64_t wanted = (kInFlight + registers - 1) / registers;
  return std::max<std::int64_t>(1, std::min({wanted, steps, kMostRegisters / registers}));
}

std::vector<std::int64_t> partial_register_stores(std::int64_t lanes, bool opmask) {
  if (opmask) return {lanes};
  std::vector<std::int64_t> out;
  for (std::int64_t piece : {4, 2, 1}) {
    if (lanes >= piece) {
      out.push_back(piece);
      lanes -= piece;
    }
  }
  return out;
}

namespace {

Cost access(const CostModel& m, const TensorSpec& t) { return m.element_access[static_cast<std::size_t>(t.level)]; }

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
}  // namespace

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

std::int64_t scratch_registers(KernelKind k, const Spec& spec, const Target& target) {
  if (k != KernelKind::bcast_fma) return 0;
  return 1 + (spec.input(1).level == Level::VRF ? 0 : row_registers(target, spec.output()));
}

}  // namespace kriek
