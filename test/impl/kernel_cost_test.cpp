// The cost model's formulas for one kernel call (impl/kernel_cost.cpp): bcast_fma's FMA and load ports and its
// streams, register panels and loads, dot_fma and the reductions' sums.
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/cost.h"
#include "impl/kernel.h"

using namespace kriek;
using namespace kriek::test;

namespace {

const CostModel& model() { return avx512_model(); }

/// bcast_fma's k-step from the time of its FMA ports, its load ports and its L2 stream: the busiest of the three
/// and an eighth of the ports that are not (they overlap in part); the stream, when not the busiest, adds
/// stream_overlap_eighths of its time (none by default: it hides behind the FMAs).
Cost partly(Cost ports, Cost loads, Cost stream = 0) {
  const Cost busiest = std::max({ports, loads, stream});
  const Cost partial = stream == busiest ? ports + loads
                                         : ports + loads - busiest + stream * model().stream_overlap_eighths;
  return busiest + partial / 8;
}

}  // namespace

TEST_CASE("cost: bcast_fma costs the busier of its FMA and load ports", "[impl][cost]") {
  const CostModel& m = model();
  auto step = [&](std::int64_t rows, std::int64_t cols) {
    TensorSpec a = strided({rows, 1}, Level::L1);
    return kernel_cost(KernelKind::bcast_fma,
                       matmul(a, ts({1, cols}, Level::VRF, Layout::row_major(), 16),
                              ts({rows, cols}, Level::VRF, Layout::row_major(), 16), true));
  };
  // 6x64: 24 FMAs against 6 broadcasts + 4 row loads: FMA-bound, an eighth of the loads beside.
  CHECK(step(6, 64) == 24 * m.vector_fma + 10 * m.vector_load / 8);
  CHECK(step(6, 64) == partly(24 * m.vector_fma, 10 * m.vector_load));
  // 16x16: 16 FMAs against 17 loads: load-bound.
  CHECK(step(16, 16) == partly(16 * m.vector_fma, 17 * m.vector_load));
  CHECK(step(16, 16) > 17 * m.vector_load);
  // 1x16: one FMA waits for the previous step's result.
  CHECK(step(1, 16) == m.fma_latency);
  // Per FMA, the wide tile is cheaper than the square one.
  CHECK(step(6, 64) * 16 < step(16, 16) * 24);
  // Broadcasts at their own rate where a core issues them faster than its widest loads (a profile says so): into
  // a register where each feeds several FMAs, as the FMA's memory operand where rows are one register wide.
  CostModel fast = m;
  fast.vector_broadcast_operand = m.vector_load / 2;
  TensorSpec a = strided({16, 1}, Level::L1);
  const Spec tall = matmul(a, ts({1, 16}, Level::VRF, Layout::row_major(), 16),
                           ts({16, 16}, Level::VRF, Layout::row_major(), 16), true);
  CHECK(kernel_cost(KernelKind::bcast_fma, tall, fast) ==
        partly(16 * m.vector_fma, 16 * fast.vector_broadcast_operand + m.vector_load));
  CHECK(kernel_cost(KernelKind::bcast_fma, tall, fast) < step(16, 16));
  // Slow register broadcasts leave one-register rows alone and weigh on wider ones, and on a column of a wider
  // tile (a strided view of it), whose broadcasts its other columns share.
  CostModel slow = m;
  slow.vector_broadcast = 3 * m.vector_load;
  CHECK(kernel_cost(KernelKind::bcast_fma, tall, slow) == step(16, 16));
  Spec column = tall;
  column.operands[2].contiguous = false;
  CHECK(kernel_cost(KernelKind::bcast_fma, column, fast) == step(16, 16));
  CHECK(kernel_cost(KernelKind::bcast_fma, column, slow) ==
        partly(16 * m.vector_fma, 16 * slow.vector_broadcast + m.vector_load));
  const Spec six = matmul(strided({6, 1}, Level::L1), ts({1, 64}, Level::VRF, Layout::row_major(), 16),
                          ts({6, 64}, Level::VRF, Layout::row_major(), 16), true);
  CHECK(kernel_cost(KernelKind::bcast_fma, six, slow) ==
        partly(24 * m.vector_fma, 6 * slow.vector_broadcast + 4 * m.vector_load));
  CHECK(kernel_cost(KernelKind::bcast_fma, six, fast) == step(6, 64));
}

TEST_CASE("cost: register panels cost their partial registers whole, partial stores by the pieces they take",
          "[impl][cost]") {
  const CostModel& m = model();
  const TensorSpec a = strided({6, 1}, Level::L1);
  const TensorSpec panels = ts({6, 40}, Level::VRF, Layout::blocked(1, 16), 16);
  // 6 rows of 3 registers (the last of 8 lanes): 18 FMAs, as a 6x48 tile; 3 rhs registers plus the broadcast.
  const ImplPtr odd = kernel(KernelKind::bcast_fma)(matmul(a, ts({1, 40}, Level::L1), panels, true));
  CHECK(evaluate(odd, avx512(), m).cost == partly(18 * m.vector_fma, 9 * m.vector_load));
  CHECK(evaluate(odd, avx512(), m).peak[Level::VRF] == 4 * 64);
  // A store of 7 lanes: one opmask store on AVX-512; 4 + 2 + 1 lanes on AVX2.
  CHECK(partial_register_stores(7, true) == std::vector<std::int64_t>{7});
  CHECK(partial_register_stores(7, false) == std::vector<std::int64_t>{4, 2, 1});
  CHECK(partial_register_stores(2, false) == std::vector<std::int64_t>{2});
  const Spec store16 = move_spec(ts({1, 7}, Level::VRF, Layout::blocked(1, 16), 16), ts({1, 7}, Level::L1));
  CHECK(kernel_cost(KernelKind::vec_store, store16) == m.vector_store);
  const Target avx2 = named_target("avx2");
  const Spec store8 = move_spec(ts({1, 7}, Level::VRF, Layout::blocked(1, 8), 8), ts({1, 7}, Level::L1));
  CHECK(node_cost(store8, KernelCall{KernelKind::vec_store}, {}, avx2, CostModel::for_target(avx2)).base ==
        3 * m.vector_store);
}

TEST_CASE("cost: register loads from L1 are free, from slower levels they bring lines", "[impl][cost]") {
  const CostModel& m = model();
  const TensorSpec reg = ts({1, 16}, Level::VRF, Layout::row_major(), 16);
  CHECK(kernel_cost(KernelKind::vec_load, move_spec(ts({1, 16}, Level::L1), reg)) == 0);
  CHECK(kernel_cost(KernelKind::vec_load, move_spec(ts({1, 16}, Level::L2), reg)) ==
        m.vector_load + m.line_from[static_cast<std::size_t>(Level::L2)]);
  TensorSpec unaligned = ts({1, 16}, Level::GL);
  unaligned.aligned = false;
  CHECK(kernel_cost(KernelKind::vec_load, move_spec(unaligned, reg)) ==
        m.vector_load + 2 * m.line_from[static_cast<std::size_t>(Level::GL)]);
}

TEST_CASE("cost: bcast_fma streams its rhs from L2 beside its ports, from main memory after them", "[impl][cost]") {
  const CostModel& m = model();
  const TensorSpec out = ts({6, 64}, Level::VRF, Layout::row_major(), 16);
  const TensorSpec a = strided({6, 1}, Level::L1);
  auto step = [&](Level rhs_level) {
    return kernel_cost(KernelKind::bcast_fma, matmul(a, ts({1, 64}, rhs_level), out, true));
  };
  const Cost line_l2 = m.line_from[static_cast<std::size_t>(Level::L2)];
  const Cost line_gl = m.line_from[static_cast<std::size_t>(Level::GL)];
  const Cost ports = 24 * m.vector_fma, loads = 10 * m.vector_load;
  CHECK(step(Level::L1) == partly(ports, loads));
  CHECK(step(Level::L2) == partly(ports, loads, 4 * (line_l2 + m.vector_load)));
  CHECK(step(Level::GL) == partly(ports, loads) + 4 * line_gl);
  // The stream beside the ports hides behind the FMAs (cost model 26): 6x64 tiles, 4 lines and 10 loads per 24
  // FMAs, cost less per FMA than 14x32 ones, 2 lines and 16 loads per 28 (384x3072x768 in 6x64 tiles 0.84-0.89x
  // the time of 12x32 ones; conv res2_3x3 the same either way).
  const TensorSpec tall = ts({14, 32}, Level::VRF, Layout::row_major(), 16);
  const Cost tall_step =
      kernel_cost(KernelKind::bcast_fma, matmul(strided({14, 1}, Level::L1), ts({1, 32}, Level::L2), tall, true));
  CHECK(tall_step * 24 > step(Level::L2) * 28);
  // Each line from L2 also takes a load-port slot to fill L1: a 3-row tile streams twice the lines per FMA of a
  // 6-row one, and its stream, not its FMAs, sets its time.
  const TensorSpec thin = ts({3, 64}, Level::VRF, Layout::row_major(), 16);
  const Cost thin_step = kernel_cost(KernelKind::bcast_fma, matmul(strided({3, 1}, Level::L1), ts({1, 64}, Level::L2), thin, true));
  CHECK(thin_step == partly(12 * m.vector_fma, 7 * m.vector_load, 4 * (line_l2 + m.vector_load)));
  CHECK(2 * thin_step > step(Level::L2));
  // An unaligned rhs row from L2 (a row of a 257-float-wide matrix read in place) adds one line's time; from L1,
  // where alignment is moot, and from main memory, where every line adds already, nothing more.
  auto unaligned = [&](Level rhs_level) {
    TensorSpec rhs = ts({1, 64}, rhs_level);
    rhs.aligned = false;
    return kernel_cost(KernelKind::bcast_fma, matmul(a, rhs, out, true));
  };
  CHECK(unaligned(Level::L2) == partly(ports, loads, 5 * (line_l2 + m.vector_load)) + line_l2 + m.vector_load);
  CHECK(unaligned(Level::L1) == step(Level::L1));
  CHECK(unaligned(Level::GL) == partly(ports, loads) + 5 * line_gl);
}

TEST_CASE("cost: bcast_fma's broadcast and memory rhs registers count in the VRF peak", "[impl][cost]") {
  const TensorSpec out = ts({6, 64}, Level::VRF, Layout::row_major(), 16);
  const TensorSpec a = strided({6, 1}, Level::L1);
  const ImplPtr from_vrf =
      kernel(KernelKind::bcast_fma)(matmul(a, ts({1, 64}, Level::VRF, Layout::row_major(), 16), out, true));
  const ImplPtr from_l1 = kernel(KernelKind::bcast_fma)(matmul(a, ts({1, 64}, Level::L1), out, true));
  CHECK(evaluate(from_vrf, avx512(), model()).peak[Level::VRF] == 64);
  CHECK(evaluate(from_l1, avx512(), model()).peak[Level::VRF] == 5 * 64);
}

TEST_CASE("cost: dot_fma is bound by its loads or the lines it streams", "[impl][cost]") {
  const CostModel& m = model();
  const TensorSpec out = ts({1, 1}, Level::RF);
  auto dot = [&](std::int64_t k, Level level) {
    return kernel_cost(KernelKind::dot_fma, matmul(ts({1, k}, level), ts({k, 1}, level), out, true));
  };
  // 256 from L1: 16 FMAs in 8 chains, 32 loads: load-bound; then the chains summed (7 adds) and the lanes (4
  // steps of a shuffle and an add).
  const Cost reduce = (7 + 2 * 4) * m.vector_op + m.scalar_op;
  CHECK(dot(256, Level::L1) == 32 * m.vector_load + reduce);
  // 16: one FMA, two loads; its latency overlaps the next call's (a loop of dots), so it is not charged.
  CHECK(dot(16, Level::L1) == 2 * m.vector_load + 2 * 4 * m.vector_op + m.scalar_op);
  // From main memory the lines dominate: 2 x 16 lines.
  CHECK(dot(256, Level::GL) == 32 * m.line_from[static_cast<std::size_t>(Level::GL)] + reduce);
  // A tile of 4 x 3 dots over 4 steps from L1 into L1: 48 FMAs, 28 loads, one chain per dot, the 12 dots' lanes in
  // one transpose tree (15 steps of three ops), each output element added, read and written.
  const Cost l1 = m.element_access[static_cast<std::size_t>(Level::L1)];
  const Spec tile = matmul(ts({4, 64}, Level::L1), ts({64, 3}, Level::L1, Layout::col_major()), ts({4, 3}, Level::L1), true);
  CHECK(kernel_cost(KernelKind::dot_fma, tile) == 48 * m.vector_fma + 3 * 15 * m.vector_op + 12 * (m.scalar_op + 2 * l1));
  // 2 x 3 dots: each dot's lanes alone (4 steps of two ops).
  const Spec small = matmul(ts({2, 64}, Level::L1), ts({64, 3}, Level::L1, Layout::col_major()), ts({2, 3}, Level::L1), true);
  CHECK(kernel_cost(KernelKind::dot_fma, small) ==
        std::max(24 * m.vector_fma, 20 * m.vector_load) + 6 * (2 * 4 * m.vector_op + m.scalar_op + 2 * l1));
  CHECK(dot_fma_tree(12, 16));
  CHECK_FALSE(dot_fma_tree(7, 16));
  CHECK(dot_fma_tree(4, 8));
  CHECK_FALSE(dot_fma_tree(1, 16));
  CHECK(dot_fma_chains(1, 16) == 8);
  CHECK(dot_fma_chains(12, 16) == 1);
  CHECK(dot_chains(16) == 8);
  CHECK(dot_chains(12) == 4);
  CHECK(dot_chains(3) == 1);
  // vec_sum_rows' accumulator sets: 8 adds in flight, no more sets than steps, at most 24 registers.
  CHECK(sum_rows_sets(1, 64) == 8);
  CHECK(sum_rows_sets(3, 64) == 3);
  CHECK(sum_rows_sets(8, 64) == 1);
  CHECK(sum_rows_sets(21, 250) == 1);
  CHECK(sum_rows_sets(1, 3) == 3);
  CHECK(sum_rows_sets(5, 64) == 2);
  CHECK(sum_rows_sets(13, 64) == 1);
}

TEST_CASE("cost: vec_sum_run sums a row like dot_fma with one load per add", "[impl][cost]") {
  const CostModel& m = model();
  auto run = [&](std::int64_t k, Level level) {
    return kernel_cost(KernelKind::vec_sum_run,
                       Spec{ReduceSum{1, true}, {ts({1, k}, level), ts({1}, Level::RF)}, false});
  };
  const Cost reduce = (7 + 2 * 4) * m.vector_op + m.scalar_op;
  // 256 from L1: 16 adds in 8 chains, 16 loads.
  CHECK(run(256, Level::L1) == 16 * m.vector_load + reduce);
  // From main memory: 16 lines.
  CHECK(run(256, Level::GL) == 16 * m.line_from[static_cast<std::size_t>(Level::GL)] + reduce);
  // 16: one add and its load (its latency is not charged, as dot_fma's).
  CHECK(run(16, Level::L1) == m.vector_load + 2 * 4 * m.vector_op + m.scalar_op);
}

TEST_CASE("cost: vec_sum_runs adds its rows like vec_sum_rows, then one transpose for all lanes", "[impl][cost]") {
  const CostModel& m = model();
  auto runs = [&](std::int64_t k, Level level) {
    return kernel_cost(KernelKind::vec_sum_runs,
                       Spec{ReduceSum{1, true}, {ts({16, k}, level), ts({16}, Level::VRF, Layout::row_major(), 16)}, false});
  };
  auto run = [&](std::int64_t k) {
    return kernel_cost(KernelKind::vec_sum_run, Spec{ReduceSum{1, true}, {ts({1, k}, Level::L1), ts({1}, Level::RF)}, false});
  };
  // 16 rows of 4 registers from L1: 64 adds and loads, 16 chains of 4 hide their latency; then 15 pairwise
  // combinations (two shuffles and an add each) and the add into the output.
  const Cost transpose = (3 * 15 + 1) * m.vector_op;
  CHECK(runs(64, Level::L1) == std::max(64 * m.vector_op, 4 * m.fma_latency) + transpose);
  // Cheaper than 16 rows one at a time, each with its own lane reduction.
  CHECK(runs(64, Level::L1) < 16 * run(64));
  // From main memory the stream dominates.
  CHECK(runs(64, Level::GL) > runs(64, Level::L1));
  // A row's partial last register costs a whole add: 45 = 2 registers and 13 lanes is 3 steps, as 48 is.
  CHECK(runs(45, Level::L1) == runs(48, Level::L1));
  CHECK(runs(45, Level::L1) > runs(32, Level::L1));
}

TEST_CASE("cost: vec_sum_rows is bound by its ports or its stream, plus its chains' waits and the sets' sum",
          "[impl][cost]") {
  const CostModel& m = model();
  auto rows = [&](std::int64_t k, std::int64_t n, Level level) {
    return kernel_cost(KernelKind::vec_sum_rows,
                       Spec{ReduceSum{0, true},
                            {strided({k, n}, level), ts({n}, Level::VRF, Layout::row_major(), 16)}, false});
  };
  // 8 registers x 64 steps from L1: 512 adds and loads on two ports each; the chains' latency hides behind them.
  CHECK(rows(64, 128, Level::L1) == 512 * m.vector_op);
  // One register: the steps alternate between 8 accumulators (chains of 8 dependent adds, hidden behind the
  // ports), which 7 adds sum into the output at the end.
  REQUIRE(sum_rows_sets(1, 64) == 8);
  REQUIRE(8 * m.fma_latency <= 64 * m.vector_op);
  CHECK(rows(64, 16, Level::L1) == 64 * m.vector_op + 7 * m.vector_op);
  // Without enough steps for 8 sets, the chains wait: 2 steps, 2 sets of one add each.
  REQUIRE(sum_rows_sets(1, 2) == 2);
  CHECK(rows(2, 16, Level::L1) == m.fma_latency + m.vector_op);
  // From main memory the stream (one line per row and register) dominates the ports.
  const Cost gl = m.line_from[static_cast<std::size_t>(Level::GL)];
  CHECK(rows(64, 128, Level::GL) == 64 * 8 * gl);
  CHECK(rows(64, 16, Level::GL) == 64 * gl + 7 * m.vector_op);
  // Register panels: a row's partial last register is a whole add (45 elements: 3 registers, in 3 sets).
  const Cost panel = kernel_cost(KernelKind::vec_sum_rows,
                                 Spec{ReduceSum{0, true},
                                      {strided({64, 45}, Level::L1), ts({45}, Level::VRF, Layout::blocked(0, 16), 16)},
                                      false});
  REQUIRE(sum_rows_sets(3, 64) == 3);
  CHECK(panel == std::max(64 * 3 * m.vector_op, 22 * m.fma_latency) + 6 * m.vector_op);
  // So a wider register tile costs less per output element when its input streams.
  CHECK(rows(64, 128, Level::GL) / 8 < rows(64, 16, Level::GL));
}
