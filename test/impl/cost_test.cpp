// The cost model's formulas on hand-built nodes: loops (trips, boundary bodies, unrolled register loops, parallel
// teams), moves (lines, strided rows), peaks, lines touched, the fingerprint and the profile's constants
// (kernel_cost_test.cpp: the kernels').
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/cost.h"
#include "impl/kernel.h"
#include "spec/profile.h"

#include <map>

using namespace kriek;
using namespace kriek::test;

namespace {

const CostModel& model() { return avx512_model(); }

/// An alias move of operand `op` to `level` around a hole.
ImplPtr alias_move(const Spec& s, std::uint8_t op, Level level) {
  TensorSpec dest = s.operands[op];
  dest.level = level;
  MoveOp m{op, dest, true, false, false};
  auto specs = move_child_specs(s, m);
  return make_move(s, std::move(m), {hole(specs[0])});
}

}  // namespace

TEST_CASE("cost: a loop costs its bodies as often as they run, plus its iterations", "[impl][cost]") {
  const CostModel& m = model();
  const Spec s = matmul(ts({10, 8}), ts({8, 8}), ts({10, 8}));
  // 4x8 tiles of 10 rows: the full body runs twice, the boundary body of 2 rows once.
  const ImplPtr loop = loop_of(s, matmul_tile(s, 4, 8), hole);
  REQUIRE(loop->children.size() == 2);
  const NodeCost nc = node_cost(*loop, avx512(), m);
  CHECK(nc.weights == PerOperand<Cost>{2, 1});
  CHECK(nc.base == 3 * m.loop_iteration);
  // A parallel loop spreads its trips, the boundary's too, over the cores and pays for the launch: it takes as
  // long as its first range, the two full tiles (the second core runs the boundary).
  const ImplPtr par = loop_of(s, matmul_tile(s, 4, 8, true), hole);
  const NodeCost pc = node_cost(*par, avx512(), m);
  CHECK(pc.weights == PerOperand<Cost>{2, 0});
  CHECK(pc.base == 2 * m.loop_iteration + m.parallel_launch);
  // 10 rows as 6 and 4 on two cores: one full tile each range, the first the slower.
  const NodeCost halves = node_cost(*loop_of(s, matmul_tile(s, 6, 8, true), hole), avx512(), m);
  CHECK(halves.weights == PerOperand<Cost>{1, 0});
  CHECK(halves.base == m.loop_iteration + m.parallel_launch);
}

TEST_CASE("cost: a loop of one-element bodies pays a quarter iteration and a scalar needs no buffer set-up",
          "[impl][cost]") {
  const CostModel& m = model();
  // A 4x3 transposing copy in L1 element by element: 12 iterations, each a quarter of loop_iteration (the
  // compilers unroll and vectorize such loops); in rows of 3 elements, 4 whole iterations.
  const Spec copy = move_spec(ts({4, 3}, Level::L1), ts({4, 3}, Level::L1, Layout::col_major()));
  Loop elements;
  elements.axes = {{4, 1}, {3, 1}};
  elements.operands = {dims({0, 1}), dims({0, 1})};
  CHECK(node_cost(*loop_of(copy, elements, hole), avx512(), m).base == 12 * (m.loop_iteration / 4));
  Loop rows = elements;
  rows.axes = {{4, 1}, {3, 3}};
  CHECK(node_cost(*loop_of(copy, rows, hole), avx512(), m).base == 4 * m.loop_iteration);
  // The element moved through a scalar register (a C local) sets nothing up; a buffer in L1 does.
  const Spec one = move_spec(ts({1, 1}, Level::L1), ts({1, 1}, Level::L1, Layout::col_major()));
  CHECK(node_cost(*move_of(one, 0, ts({1, 1}, Level::RF), hole, hole), avx512(), m).base == 0);
  const Spec mm = matmul(ts({4, 8}, Level::L2), ts({8, 16}), ts({4, 16}));
  CHECK(node_cost(*move_of(mm, 0, ts({4, 8}, Level::L1), hole, hole), avx512(), m).base == m.buffer_setup);
  // A scalar copy is a load or a store: a quarter of a scalar op beside the two accesses.
  CHECK(kernel_cost(KernelKind::scalar_copy, move_spec(ts({1, 1}, Level::L1), ts({1, 1}, Level::RF))) ==
        m.scalar_op / 4 + m.element_access[static_cast<std::size_t>(Level::L1)]);
}

TEST_CASE("cost: a loop whose body keeps the FMA ports busy from L1 pays a quarter iteration", "[impl][cost]") {
  const CostModel& m = model();
  // A 6x64 register tile's k-loop: each step 24 FMAs (12 cycles) against a 1-cycle index update and branch on
  // other ports. 64x4096x64 on 1 thread: its 6x64 tiles over all of K, 193 -> 181 us once priced so.
  const TensorSpec out = ts({6, 64}, Level::VRF, Layout::row_major(), 16);
  const Spec tile = matmul(ts({6, 256}, Level::L1), ts({256, 64}, Level::L1), out, true);
  CHECK(node_cost(*loop_of(tile, matmul_split(tile, 1), hole), avx512(), m).base == 256 * (m.loop_iteration / 4));
  // Its rhs streamed from L2, rows of 64 floats one after another (one sequential stream): still a quarter (cost
  // model 28; matmul 64x4096x64's 6x64 tiles over all of K with B from L2, 0.9x the time of K blocks in L1).
  const Spec streamed = matmul(ts({6, 256}, Level::L1), ts({256, 64}, Level::L2), out, true);
  const ImplPtr streamed_loop = loop_of(streamed, matmul_split(streamed, 1), hole);
  CHECK(node_cost(*streamed_loop, avx512(), m).base == 256 * (m.loop_iteration / 4));
  // In 16-column panels (rows of one line in four places) whole iterations (conv res5_3x3's 7x32 passes over K
  // with filters from L2 ran 27% slower than the same FMAs from packed blocks in L1).
  const Spec panels = matmul(ts({6, 256}, Level::L1), ts({256, 64}, Level::L2, Layout::blocked(1, 16)), out, true);
  CHECK(node_cost(*loop_of(panels, matmul_split(panels, 1), hole), avx512(), m).base == 256 * m.loop_iteration);
  // The same rows a stride apart (a block of a wider B): whole iterations (1024^3 reading such rows from L2 took
  // 1.18x the time of its pick over packed panels when priced a quarter).
  TensorSpec block = ts({256, 64}, Level::L2);
  block.contiguous = false;
  const Spec strided_rows = matmul(ts({6, 256}, Level::L1), block, out, true);
  CHECK(node_cost(*loop_of(strided_rows, matmul_split(strided_rows, 1), hole), avx512(), m).base ==
        256 * m.loop_iteration);
  CostModel old = m;  // cost model 27: any rhs from L2 keeps whole iterations
  old.streamed_rows_hide_iteration = 0;
  CHECK(node_cost(*streamed_loop, avx512(), old).base == 256 * m.loop_iteration);
  // One FMA a step (a 1x16 tile) is under four iterations' time: whole iterations.
  const Spec thin = matmul(ts({1, 256}, Level::L1), ts({256, 16}, Level::L1),
                           ts({1, 16}, Level::VRF, Layout::row_major(), 16), true);
  CHECK(node_cost(*loop_of(thin, matmul_split(thin, 1), hole), avx512(), m).base == 256 * m.loop_iteration);
}

TEST_CASE("cost: a loop unrolled over register-held operands pays for its code beyond the instruction cache",
          "[impl][cost]") {
  const CostModel& m = model();
  const Cost from_l2 = m.line_from[static_cast<std::size_t>(Level::L2)];
  // The row sums of n x 256 into n sums held in registers, in blocks of 16 rows: the loop is unrolled (its output
  // is in registers), each block 513 instructions (a load and an add per input register, the output's register),
  // 4104 bytes.
  const auto row_sums = [&](std::int64_t n) {
    const Spec s{ReduceSum{1, false}, {ts({n, 256}), ts({n}, Level::VRF, Layout::row_major(), 16)}, false};
    Loop loop;
    loop.axes = {{n, 16}};
    loop.operands = {dims({0, -1}), dims({0})};
    return node_cost(*loop_of(s, loop, hole), avx512(), m).base;
  };
  // 256 rows: 16 copies, 65,664 bytes, 32,896 beyond the 32 KiB cache: 514 lines from L2 on every run.
  CHECK(row_sums(256) == 514 * from_l2);
  CHECK(row_sums(128) == 1 * from_l2);
  CHECK(row_sums(64) == 0);
  // A matmul's body loops over K (a rolled split), so its copies add no code of that size: 16 row tiles of 6x64.
  const Spec mm = matmul(ts({96, 256}, Level::L1), ts({256, 64}, Level::L1),
                         ts({96, 64}, Level::VRF, Layout::row_major(), 16));
  CHECK(node_cost(*loop_of(mm, matmul_tile(mm, 6, 64), hole), avx512(), m).base == 0);
}

TEST_CASE("cost: the memory around a hole is what its ancestors hold", "[impl][cost]") {
  const CostModel& m = model();
  // A 6x64 register tile (1536 bytes of VRF) around its body and its store; a loop of two such tiles holds nothing
  // of its own.
  const TensorSpec reg = ts({6, 64}, Level::VRF, Layout::row_major(), 16);
  const Spec tile = matmul(ts({6, 256}, Level::L1), ts({256, 64}, Level::L1), ts({6, 64}));
  const Build in_registers = [&](const Spec& t) { return move_of(t, 2, reg, hole, nullptr, hole); };
  const ImplPtr one = in_registers(tile);
  REQUIRE(holes(one).size() == 2);
  CHECK(memory_around_hole(one, 0, avx512(), m)[Level::VRF] == 1536);
  CHECK(memory_around_hole(one, 1, avx512(), m)[Level::VRF] == 1536);
  CHECK(memory_around_hole(one, 0, avx512(), m)[Level::L1] == 0);
  const Spec rows = matmul(ts({12, 256}, Level::L1), ts({256, 64}, Level::L1), ts({12, 64}));
  const ImplPtr loop = loop_of(rows, matmul_tile(rows, 6, 64), in_registers);
  REQUIRE(holes(loop).size() == 2);
  CHECK(memory_around_hole(loop, 1, avx512(), m)[Level::VRF] == 1536);
  // The hole of a bare Spec has nothing around it.
  CHECK(memory_around_hole(hole(tile), 0, avx512(), m) == MemoryUse{});
}

TEST_CASE("cost: a parallel loop pays for the team-written inputs every core reads whole", "[impl][cost]") {
  const CostModel& m = model();
  // lhs 10x8 (5 lines) and rhs 8x8 (4 lines) in L2, written by the team. Tiles of 4 rows cut the lhs among the
  // cores; every tile reads all of the rhs, half of whose lines the other core wrote.
  TensorSpec lhs = ts({10, 8}, Level::L2), rhs = ts({8, 8}, Level::L2);
  lhs.shared = rhs.shared = true;
  const Spec s = matmul(lhs, rhs, ts({10, 8}));
  const NodeCost rows = node_cost(*loop_of(s, matmul_tile(s, 4, 8, true), hole), avx512(), m);
  CHECK(rows.base == 2 * m.loop_iteration + m.parallel_launch + 4 / 2 * m.cross_core_line);
  // Tiles of 4 columns read all of the lhs and cut the rhs only along its inner dimension, not the way its writers
  // did (outermost first): both cross over.
  const NodeCost columns = node_cost(*loop_of(s, matmul_tile(s, 10, 4, true), hole), avx512(), m);
  CHECK(columns.base == m.loop_iteration + m.parallel_launch + (5 / 2 + 4 / 2) * m.cross_core_line);
  // Serial, nothing crosses; nor from the caller's buffers or aliases of them (unchanged between calls, they stay
  // in every core's cache).
  CHECK(node_cost(*loop_of(s, matmul_tile(s, 4, 8), hole), avx512(), m).base == 3 * m.loop_iteration);
  const Spec aliases = matmul(ts({10, 8}, Level::L2), ts({8, 8}, Level::L2), ts({10, 8}));
  CHECK(node_cost(*loop_of(aliases, matmul_tile(aliases, 4, 8, true), hole), avx512(), m).base ==
        2 * m.loop_iteration + m.parallel_launch);
}

TEST_CASE("cost: loops over register-held operands are unrolled and cost no iterations", "[impl][cost]") {
  const CostModel& m = model();
  const TensorSpec out = ts({4, 32}, Level::VRF, Layout::row_major(), 16);
  const Spec s = matmul(ts({4, 1}, Level::L1), ts({1, 32}, Level::VRF, Layout::row_major(), 16), out, true);
  const ImplPtr loop = loop_of(s, matmul_tile(s, 1, 32), kernel(KernelKind::bcast_fma));
  const Cost body = evaluate(loop->children[0], avx512(), m).cost;
  CHECK(evaluate(loop, avx512(), m).cost == 4 * body);
  // The same loop over memory operands pays its four iterations.
  const Spec mem = matmul(ts({4, 1}, Level::L1), ts({1, 32}, Level::L1), ts({4, 32}, Level::L1), true);
  const ImplPtr rolled = loop_of(mem, matmul_tile(mem, 1, 32), hole);
  CHECK(evaluate(rolled, avx512(), m).cost == 4 * m.loop_iteration);
}

TEST_CASE("cost: an alias move costs the lines it brings, strided rows dearer, the output's both ways",
          "[impl][cost]") {
  const CostModel& m = model();
  const Spec s = matmul(ts({8, 16}), ts({16, 16}), ts({8, 16}));
  const ImplPtr contiguous = alias_move(s, 0, Level::L1);
  // 8x16 f32 contiguous: 8 lines from GL; the move's own memory is those lines in L1.
  const ImplCost c = evaluate(contiguous, avx512(), m);
  CHECK(c.cost == 8 * m.line_from[static_cast<std::size_t>(Level::GL)]);
  CHECK(c.peak[Level::L1] == 8 * 64);
  Spec t = s;
  t.operands[0] = strided({8, 16});
  const Cost line = m.line_from[static_cast<std::size_t>(Level::GL)];
  CHECK(evaluate(alias_move(t, 0, Level::L1), avx512(), m).cost == 8 * (line + line * m.strided_percent / 100));
  // The output's lines also go back to GL: output_return_percent more each (half by default).
  REQUIRE(m.output_return_percent == 50);
  CHECK(evaluate(alias_move(s, 2, Level::L1), avx512(), m).cost == 8 * (line + line / 2));
  CostModel one_way = m;
  one_way.output_return_percent = 0;
  CHECK(evaluate(alias_move(s, 2, Level::L1), avx512(), one_way).cost == 8 * line);
}


TEST_CASE("cost: an accumulator reloaded into registers from L1 takes a load per register", "[impl][cost]") {
  const CostModel& m = model();
  // A 6x64 output tile in L1 of an accumulating matmul, moved into 24 registers and loaded first.
  const Spec acc = matmul(strided({6, 64}, Level::L1), ts({64, 64}, Level::L1), ts({6, 64}, Level::L1), true);
  const TensorSpec regs = ts({6, 64}, Level::VRF, Layout::row_major(), 16);
  auto base = [&](const Spec& spec, std::uint8_t operand, bool load) {
    TensorSpec dest = regs;
    if (operand != 2) dest.shape = spec.operands[operand].shape;
    return node_cost(spec, MoveOp{operand, dest, false, load, operand == 2}, {}, avx512(), m).base;
  };
  CHECK(base(acc, 2, true) == m.buffer_setup + 24 * m.vector_load);
  // Not loaded (a plain matmul's output is zeroed in registers), nor an input (bcast_fma counts its rhs loads).
  CHECK(base(acc, 2, false) == m.buffer_setup);
  CHECK(base(acc, 1, true) == m.buffer_setup);
  // From L2 the loads' lines are vec_load's to price.
  Spec far = acc;
  far.operands[2].level = Level::L2;
  CHECK(base(far, 2, true) == m.buffer_setup);
}

TEST_CASE("a copy made for a thread team is shared where the body reads it", "[impl][cost]") {
  // matmul 64x64x64 is worth a team; its rhs copied into L2 is a buffer the team fills.
  const Spec s = matmul(ts({64, 64}), ts({64, 64}), ts({64, 64}));
  auto body_rhs = [&](const Spec& spec, Level level, bool alias) {
    TensorSpec dest = spec.operands[1];
    dest.level = level;
    return move_child_specs(spec, MoveOp{1, dest, alias, !alias, false}).front().operands[1];
  };
  CHECK(body_rhs(s, Level::L2, false).shared);
  // Not an alias (the caller's data), nor registers (one core's), nor below a serial Spec or one too small for a
  // team.
  CHECK_FALSE(body_rhs(s, Level::L2, true).shared);
  CHECK_FALSE(body_rhs(s, Level::VRF, false).shared);
  Spec serial = s;
  serial.serial_only = true;
  CHECK_FALSE(body_rhs(serial, Level::L2, false).shared);
  CHECK_FALSE(body_rhs(matmul(ts({8, 64}), ts({64, 64}), ts({8, 64})), Level::L2, false).shared);
}

TEST_CASE("cost: lines touched count strided rows and blocks", "[impl][cost]") {
  CHECK(lines_touched(ts({4, 16})) == 4);
  CHECK(lines_touched(strided({4, 8})) == 4);  // a half line per row still brings a line
  TensorSpec unaligned = strided({4, 16});
  unaligned.aligned = false;
  CHECK(lines_touched(unaligned) == 8);
  TensorSpec blocked = strided({2, 32});
  blocked.layout = Layout::blocked(1, 16);
  CHECK(blocked.runs() == 4);
  CHECK(lines_touched(blocked) == 4);
}

TEST_CASE("the cost model's fingerprint is pinned and covers its constants", "[cost]") {
  // Computed once with spec/stable_hash.h: tables on disk carry it, so it must not drift between builds or runs.
  const CostModel m = CostModel::for_target(named_target("avx512"));
  CHECK(m.fingerprint() == 0xb5b17bbf031a02f8ull);  // cost model version 31
  CostModel other = m;
  other.loop_iteration += 1;
  CHECK(other.fingerprint() != m.fingerprint());
  other = m;
  other.output_return_percent = 0;
  CHECK(other.fingerprint() != m.fingerprint());
  other = m;
  other.version += 1;
  CHECK(other.fingerprint() != m.fingerprint());
}

TEST_CASE("a target's profile sets the constants it measures", "[cost][profile]") {
  const Target avx2 = named_target("avx2");
  TargetProfile p;
  p.target = avx2.name;
  p.isa = avx2.isa;
  p.target_fingerprint = avx2.fingerprint();
  const std::map<std::string, double> measured = {
      {"fma-per-cycle.256b", 2},  {"fma-latency.256b", 4},    {"loads-per-cycle", 2},   {"stores-per-cycle", 1},
      {"vector-ops-per-cycle", 4}, {"fma-per-cycle.32b", 2},  {"read-bandwidth.L1", 64}, {"read-bandwidth.L2", 32},
      {"read-bandwidth.L3", 16},  {"pack-contiguous", 10},    {"pack-strided", 8},      {"parallel-launch", 3000},
      {"cross-core-latency", 256}, {"cross-core-stream", 16}, {"broadcasts-per-cycle", 4},
      {"broadcast-operands-per-cycle", 8}};
  for (const ProfileKey& k : profile_keys(avx2.isa)) {
    p.values.emplace_back(k.key, measured.count(k.key) ? measured.at(k.key) : 1.0);
  }
  const CostModel plain = CostModel::for_target(avx2);
  const CostModel m = CostModel::for_target(with_profile(avx2, p));
  CHECK(m.vector_fma == 8);
  CHECK(m.fma_latency == 64);
  CHECK(m.vector_load == 8);
  CHECK(m.vector_broadcast == 4);
  CHECK(m.vector_broadcast_operand == 4);  // AVX2 broadcasts into registers only
  CHECK(m.vector_store == 16);
  CHECK(m.vector_op == 4);
  CHECK(m.scalar_op == 8);
  CHECK(m.line_from == std::array<Cost, kLevelCount>{64, 32, 16, 0, 0});
  // Elements keep their ratio to lines: GL 48/96 of a line, L2 12/24, L1 2/8.
  CHECK(m.element_access == std::array<Cost, kLevelCount>{32, 16, 4, 0, 0});
  CHECK(m.strided_percent == 25);
  CHECK(m.parallel_launch == 48000);
  // Between one line at a time and a stream of them: the geometric mean, 64 cycles.
  CHECK(m.cross_core_line == 1024);
  // What no measurement covers keeps its default; the constants change the fingerprint.
  CHECK(m.loop_iteration == plain.loop_iteration);
  CHECK(m.buffer_setup == plain.buffer_setup);
  CHECK(m.fingerprint() != plain.fingerprint());
  // Without a profile the constants are the defaults of that target (pinned above for avx512).
  CHECK(plain.vector_fma == CostModel{}.vector_fma);
  // One CPU measures no other core's lines (0): the default stays.
  for (auto& [key, value] : p.values) {
    if (key.rfind("cross-core-", 0) == 0) value = 0;
  }
  CHECK(CostModel::for_target(with_profile(avx2, p)).cross_core_line == plain.cross_core_line);
  // AVX-512 broadcasts memory operands at a rate of their own.
  const Target avx512_host = named_target("avx512");
  TargetProfile q = p;
  q.target = avx512_host.name;
  q.isa = avx512_host.isa;
  q.target_fingerprint = avx512_host.fingerprint();
  q.values.clear();
  for (const ProfileKey& k : profile_keys(avx512_host.isa)) {
    q.values.emplace_back(k.key, measured.count(k.key) ? measured.at(k.key) : 1.0);
  }
  const CostModel m512 = CostModel::for_target(with_profile(avx512_host, q));
  CHECK(m512.vector_broadcast == 4);
  CHECK(m512.vector_broadcast_operand == 2);
}
