// Kernel legality: every rule of every kernel accepted once and rejected with its reason, names round-trip, and
// kernels_for lists the kernels in order.
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/kernel.h"
#include "spec/reasons.h"

using namespace kriek;
using namespace kriek::test;

namespace {

const Target& scalar_target() {
  static const Target t = named_target("scalar");
  return t;
}

const Target& avx2() {
  static const Target t = named_target("avx2");
  return t;
}

TensorSpec vec(Shape s) { return ts(std::move(s), Level::VRF, Layout::row_major(), 16); }
/// A VRF tensor in register panels of 16 (impl/tiling.h): rows whose last register may be partial.
TensorSpec panels(Shape s) {
  const std::size_t last = s.size() - 1;
  return ts(std::move(s), Level::VRF, Layout::blocked(static_cast<std::uint8_t>(last), 16), 16);
}
TensorSpec rf(Shape s = {1, 1}) { return ts(std::move(s), Level::RF); }

/// Requires that `k` rejects `s` with a reason containing `part`.
void rejects(KernelKind k, const Spec& s, const std::string& part, const Target& t = avx512()) {
  auto why = kernel_illegal(k, s, t);
  INFO("kernel " << kernel_name(k));
  REQUIRE(why.has_value());
  CHECK_THAT(*why, Catch::Matchers::Contains(part));
}

void accepts(KernelKind k, const Spec& s, const Target& t = avx512()) {
  auto why = kernel_illegal(k, s, t);
  INFO("kernel " << kernel_name(k) << ": " << why.value_or(""));
  CHECK(!why.has_value());
}

Spec unary(TensorSpec in, TensorSpec out) { return Spec{Unary{}, {std::move(in), std::move(out)}, false}; }
Spec binary(TensorSpec a, TensorSpec b, TensorSpec out) {
  return Spec{Binary{BinaryOp::add}, {std::move(a), std::move(b), std::move(out)}, false};
}
Spec zero(TensorSpec out) { return Spec{Zero{}, {std::move(out)}, false}; }

}  // namespace

TEST_CASE("kernel names are the enum identifiers and parse back", "[kernel]") {
  CHECK(kernel_name(KernelKind::bcast_fma) == "bcast_fma");
  CHECK(kernel_name(KernelKind::scalar_reduce_add) == "scalar_reduce_add");
  for (KernelKind k : kAllKernels) CHECK(parse_kernel(kernel_name(k)) == k);
  CHECK_FALSE(parse_kernel("fma").has_value());
}

TEST_CASE("scalar_mult_add: matmul[acc] 1x1x1, output in RF, no VRF", "[kernel]") {
  const auto k = KernelKind::scalar_mult_add;
  accepts(k, matmul(ts({1, 1}), ts({1, 1}, Level::L1), rf(), true));
  accepts(k, matmul(ts({1, 1, 1}), ts({1, 1, 1}), rf({1, 1, 1}), true));
  accepts(k, matmul(ts({1, 1}), ts({1, 1}), rf(), true), scalar_target());
  rejects(k, matmul(ts({1, 1}), ts({1, 1}), rf(), false), "does not accumulate");
  rejects(k, unary(rf(), rf()), "implements matmul[acc], not relu");
  rejects(k, matmul(ts({1, 2}), ts({2, 1}), rf(), true), "operand 0 (1x2 GL) has 2 elements, not 1");
  rejects(k, matmul(ts({1, 1}), ts({1, 1}), ts({1, 1}), true), "the output operand 2 (1x1 GL) is not in RF");
  rejects(k, matmul(vec({1, 1}), ts({1, 1}), rf(), true), "operand 0 (1x1 VRF) is in VRF");
  TensorSpec half = ts({1, 1});
  half.dtype = Dtype::f16;
  rejects(k, matmul(half, ts({1, 1}), rf(), true), "operand 0 (1x1 GL) is f16, not f32");
}

TEST_CASE("quiet reasons: a rule fails alike with no reason spelled out, and only while asked", "[kernel]") {
  const Spec bad = matmul(ts({1, 2}), ts({2, 1}), rf(), true);
  const Spec good = matmul(ts({1, 1}), ts({1, 1}, Level::L1), rf(), true);
  {
    const QuietReasons quiet;
    const auto why = kernel_illegal(KernelKind::scalar_mult_add, bad, avx512());
    REQUIRE(why.has_value());
    CHECK(why->empty());
    CHECK_FALSE(kernel_illegal(KernelKind::scalar_mult_add, good, avx512()).has_value());
    CHECK(kernels_for(good, avx512()) == std::vector<KernelKind>{KernelKind::scalar_mult_add});
  }
  CHECK(kernel_illegal(KernelKind::scalar_mult_add, bad, avx512()) == "operand 0 (1x2 GL) has 2 elements, not 1");
}

TEST_CASE("scalar_copy: one element, source or destination RF, neither VRF", "[kernel]") {
  const auto k = KernelKind::scalar_copy;
  accepts(k, move_spec(ts({1, 1}), rf()));
  accepts(k, move_spec(rf(), ts({1, 1}, Level::L2)));
  rejects(k, move_spec(ts({1, 1}), ts({1, 1}, Level::L1)), "neither operand 0 (1x1 GL) nor operand 1 (1x1 L1) is in RF");
  rejects(k, move_spec(vec({1, 1}), rf()), "is in VRF");
  rejects(k, move_spec(ts({1, 2}), rf({1, 2})), "has 2 elements, not 1");
  rejects(k, zero(rf()), "implements move, not zero");
}

TEST_CASE("scalar_zero, scalar_unary, scalar_binary, scalar_reduce_add", "[kernel]") {
  accepts(KernelKind::scalar_zero, zero(rf()));
  rejects(KernelKind::scalar_zero, zero(ts({1, 1})), "is not in RF");
  rejects(KernelKind::scalar_zero, zero(rf({2})), "has 2 elements");
  accepts(KernelKind::scalar_unary, unary(ts({1}), rf({1})));
  rejects(KernelKind::scalar_unary, unary(ts({1}), ts({1})), "is not in RF");
  rejects(KernelKind::scalar_unary, zero(rf()), "implements a unary op, not zero");
  accepts(KernelKind::scalar_binary, binary(ts({1}), ts({1}, Level::L1), rf({1})));
  rejects(KernelKind::scalar_binary, binary(ts({1}), vec({1}), rf({1})), "operand 1 (1 VRF) is in VRF");
  const Spec reduce{ReduceSum{1, true}, {ts({1, 1}), rf({1})}, false};
  accepts(KernelKind::scalar_reduce_add, reduce);
  const Spec plain{ReduceSum{1, false}, {ts({1, 1}), rf({1})}, false};
  rejects(KernelKind::scalar_reduce_add, plain, "reducesum does not accumulate");
  const Spec wide{ReduceSum{1, true}, {ts({1, 4}), rf({1})}, false};
  rejects(KernelKind::scalar_reduce_add, wide, "operand 0 (1x4 GL) has 4 elements");
}

TEST_CASE("vec_load: memory to one VRF vector, source contiguous, same element order", "[kernel]") {
  const auto k = KernelKind::vec_load;
  accepts(k, move_spec(ts({1, 16}, Level::L1), vec({1, 16})));
  accepts(k, move_spec(ts({16, 1}, Level::GL, Layout::col_major()), vec({16, 1})));
  rejects(k, move_spec(ts({1, 16}), vec({1, 16})), "has no vector registers", scalar_target());
  rejects(k, move_spec(ts({1, 16}), ts({1, 16}, Level::VRF, Layout::row_major(), 8)),
          "operand 1 (1x16 VRF) has vector size 8, the target's is 16");
  rejects(k, move_spec(ts({1, 8}), vec({1, 8})), "operand 1 (1x8 VRF) has 8 elements, not one vector of 16");
  rejects(k, move_spec(ts({1, 16}), ts({1, 16}, Level::L1)), "operand 1 (1x16 L1) is not in VRF");
  rejects(k, move_spec(rf({1, 16}), vec({1, 16})), "operand 0 (1x16 RF) is not in memory");
  // A row of a row-major tensor is one run at any row stride; two rows with a gap are not.
  TensorSpec strided = ts({1, 16});
  strided.contiguous = false;
  accepts(k, move_spec(strided, vec({1, 16})));
  strided.shape = {2, 8};
  rejects(k, move_spec(strided, vec({2, 8})), "operand 0 (2x8 GL) is not contiguous");
  rejects(k, move_spec(ts({2, 8}, Level::GL, Layout::col_major()), vec({2, 8})), "orders elements unlike");
  rejects(k, zero(vec({1, 16})), "implements move, not zero");
}

TEST_CASE("vector kernels take the partial register that ends a row in register panels", "[kernel]") {
  accepts(KernelKind::vec_load, move_spec(ts({1, 5}, Level::L1), panels({1, 5})));
  accepts(KernelKind::vec_store, move_spec(panels({1, 5}), ts({1, 5})));
  accepts(KernelKind::vec_zero, zero(panels({1, 13})));
  accepts(KernelKind::vec_unary, unary(panels({1, 5}), panels({1, 5})));
  accepts(KernelKind::vec_binary, binary(panels({1, 5}), ts({1, 1}), panels({1, 5})));
  // One row only, fewer lanes than a register, in panels (a row-major VRF tensor has no padding lanes).
  rejects(KernelKind::vec_zero, zero(panels({2, 5})),
          "operand 0 (2x5 VRF) has 10 elements, not one vector of 16 nor one row of fewer in register panels (blk1:16)");
  rejects(KernelKind::vec_zero, zero(panels({1, 20})), "has 20 elements, not one vector of 16");
  rejects(KernelKind::vec_zero, zero(panels({2, 8})), "operand 0 (2x8 VRF) has 16 elements, not one vector of 16 nor");
  rejects(KernelKind::vec_load, move_spec(ts({1, 5}), vec({1, 5})),
          "operand 1 (1x5 VRF) has 5 elements, not one vector of 16 nor one row of fewer in register panels (row)");
  rejects(KernelKind::vec_store, move_spec(ts({1, 5}, Level::VRF, Layout::blocked(0, 16), 16), ts({1, 5})),
          "not one vector of 16 nor one row of fewer in register panels (blk0:16)");
}

TEST_CASE("vec_store: one VRF vector to memory, destination contiguous", "[kernel]") {
  const auto k = KernelKind::vec_store;
  accepts(k, move_spec(vec({1, 16}), ts({1, 16}, Level::L2)));
  TensorSpec strided = ts({2, 8});
  strided.contiguous = false;
  rejects(k, move_spec(vec({2, 8}), strided), "operand 1 (2x8 GL) is not contiguous");
  rejects(k, move_spec(ts({1, 16}), ts({1, 16})), "operand 0 (1x16 GL) is not in VRF");
  rejects(k, move_spec(vec({1, 16}), vec({1, 16})), "operand 1 (1x16 VRF) is not in memory");
}

TEST_CASE("vec_zero, vec_unary, vec_binary: whole vectors of equal shapes in VRF", "[kernel]") {
  accepts(KernelKind::vec_zero, zero(vec({1, 16})));
  rejects(KernelKind::vec_zero, zero(vec({2, 16})), "has 32 elements, not one vector of 16");
  rejects(KernelKind::vec_zero, zero(ts({1, 16})), "is not in VRF");
  accepts(KernelKind::vec_unary, unary(vec({1, 16}), vec({1, 16})));
  rejects(KernelKind::vec_unary, unary(vec({1, 16}), vec({16, 1})), "differ in shape");
  rejects(KernelKind::vec_unary, unary(ts({1, 16}), vec({1, 16})), "operand 0 (1x16 GL) is not in VRF");
  accepts(KernelKind::vec_binary, binary(vec({16}), vec({16}), vec({16})));
  rejects(KernelKind::vec_binary, binary(vec({16}), vec({16}), ts({16}, Level::L1)), "operand 2 (16 L1) is not in VRF");
  rejects(KernelKind::vec_binary, unary(vec({16}), vec({16})), "implements a binary op, not relu");
  // An input of one element in memory is broadcast.
  accepts(KernelKind::vec_binary, binary(vec({1, 16}), ts({1, 1}, Level::L1), vec({1, 16})));
  accepts(KernelKind::vec_binary, binary(ts({1, 1}), vec({1, 16}), vec({1, 16})));
  rejects(KernelKind::vec_binary, binary(vec({1, 16}), rf({1, 1}), vec({1, 16})),
          "operand 1 (1x1 RF) is not in VRF (nor one element in memory to broadcast)");
  rejects(KernelKind::vec_binary, binary(vec({1, 16}), vec({16, 1}), vec({1, 16})),
          "operand 1 (16x1 VRF) and the output 1x16 differ in shape");
}

TEST_CASE("bcast_fma: A m x 1 in memory, B 1 x n in VRF or memory, C m x n in VRF, registers bounded", "[kernel]") {
  const auto k = KernelKind::bcast_fma;
  accepts(k, matmul(ts({6, 1}, Level::L1, Layout::col_major()), vec({1, 32}), vec({6, 32}), true));
  rejects(k, matmul(ts({6, 1}), vec({1, 32}), vec({6, 32}), false), "does not accumulate");
  rejects(k, matmul(ts({2, 6, 1}), vec({2, 1, 16}), vec({2, 6, 16}), true),
          "bcast_fma needs rank-2 operands or a batch of 1, got operand 0 (2x6x1 GL)");
  // A batch of one is a matmul.
  accepts(k, matmul(ts({1, 6, 1}), vec({1, 1, 32}), vec({1, 6, 32}), true));
  accepts(k, matmul(ts({1, 6, 1}), ts({1, 1, 32}), vec({1, 6, 32}), true));
  rejects(k, matmul(ts({6, 2}), vec({2, 16}), vec({6, 16}), true), "the reduction extent is 2, not 1");
  rejects(k, matmul(rf({6, 1}), vec({1, 16}), vec({6, 16}), true), "operand 0 (6x1 RF) is not in memory");
  // B from memory: whole registers of a dense row (row-major, or panels of one register).
  accepts(k, matmul(ts({6, 1}), ts({1, 16}), vec({6, 16}), true));
  accepts(k, matmul(ts({6, 1}), ts({1, 64}, Level::L2, Layout::blocked(1, 16)), vec({6, 64}), true));
  rejects(k, matmul(ts({6, 1}), ts({1, 64}, Level::L2, Layout::blocked(1, 8)), vec({6, 64}), true),
          "operand 1 (1x64 L2) in memory is not registers of dense rows (blk1:8)");
  rejects(k, matmul(ts({6, 1}), rf({1, 16}), vec({6, 16}), true), "operand 1 (1x16 RF) is neither in VRF nor in memory");
  rejects(k, matmul(ts({6, 1}), vec({1, 16}), ts({6, 16}), true), "operand 2 (6x16 GL) is not in VRF");
  rejects(k, matmul(ts({6, 1}), vec({1, 16}), ts({6, 16}, Level::VRF, Layout::col_major(), 16), true),
          "operand 2 (6x16 VRF) is not rows of registers (col");
  rejects(k, matmul(ts({6, 1}), vec({1, 8}), vec({6, 8}), true),
          "operand 2 (6x8 VRF) is not rows of registers (row, n = 8, vector size 16)");
  rejects(k, matmul(ts({15, 1}), vec({1, 32}), vec({15, 32}), true),
          "needs 33 vector registers (30 for C, 2 for B, 1 broadcast), the target has 32");
  accepts(k, matmul(ts({14, 1}), vec({1, 32}), vec({14, 32}), true));
}

TEST_CASE("bcast_fma: an odd n in register panels, the last register of each row partial", "[kernel]") {
  const auto k = KernelKind::bcast_fma;
  accepts(k, matmul(ts({6, 1}), ts({1, 20}), panels({6, 20}), true));
  accepts(k, matmul(ts({6, 1}), panels({1, 20}), panels({6, 20}), true));
  accepts(k, matmul(ts({6, 1}), ts({1, 20}, Level::L1, Layout::blocked(1, 16)), panels({6, 20}), true));
  accepts(k, matmul(ts({6, 1}), ts({1, 3}), panels({6, 3}), true));
  // B from memory: each register's elements one run (row-major rows at any stride, or aligned panels).
  TensorSpec strided = ts({1, 20});
  strided.contiguous = false;
  accepts(k, matmul(ts({6, 1}), strided, panels({6, 20}), true));
  rejects(k, matmul(ts({6, 1}), ts({1, 20}, Level::L1, Layout::blocked(1, 8)), panels({6, 20}), true),
          "operand 1 (1x20 L1) in memory is not registers of dense rows (blk1:8)");
  rejects(k, matmul(ts({6, 1}), ts({1, 20}), ts({6, 20}, Level::VRF, Layout::blocked(1, 8), 16), true),
          "operand 2 (6x20 VRF) is not rows of registers (blk1:8");
  // Registers count partial ones whole: 15 rows of 2 + 2 for B + 1 = 33.
  rejects(k, matmul(ts({15, 1}), ts({1, 20}), panels({15, 20}), true),
          "needs 33 vector registers (30 for C, 2 for B, 1 broadcast), the target has 32");
  accepts(k, matmul(ts({14, 1}), ts({1, 20}), panels({14, 20}), true));
}

TEST_CASE("dot_fma: m x n dots of dense lhs rows and rhs columns into RF or memory", "[kernel]") {
  const auto k = KernelKind::dot_fma;
  accepts(k, matmul(ts({1, 64}), ts({64, 1}), rf({1, 1}), true));
  accepts(k, matmul(ts({1, 32}, Level::L1), ts({32, 1}, Level::L2), rf({1, 1}), true));
  accepts(k, matmul(ts({1, 64}), ts({64, 1}), ts({1, 1}, Level::L1), true));  // one dot into memory
  rejects(k, matmul(ts({1, 64}), ts({64, 1}), rf({1, 1}), false), "does not accumulate");
  accepts(k, matmul(ts({1, 24}), ts({24, 1}), rf({1, 1}), true));  // a partial last register, masked
  rejects(k, matmul(ts({1, 8}), ts({8, 1}), rf({1, 1}), true), "k = 8 is less than a register (16)");
  TensorSpec column = ts({64, 1});
  column.contiguous = false;  // a column of a wider matrix: k elements a row apart
  rejects(k, matmul(ts({1, 64}), column, rf({1, 1}), true), "operand 1 (64x1 GL) is not one dense run (row, strided)");
  rejects(k, matmul(vec({1, 16}), ts({16, 1}), rf({1, 1}), true), "operand 0 (1x16 VRF) is not in memory");
  rejects(k, matmul(ts({1, 64}), ts({64, 1}), vec({1, 1}), true), "the output operand 2 (1x1 VRF) is neither in RF nor");
  rejects(k, matmul(ts({1, 64}), ts({64, 1}), rf({1, 1}), true), "has no vector registers", scalar_target());
  accepts(k, matmul(ts({1, 1, 64}), ts({1, 64, 1}), rf({1, 1, 1}), true));
  rejects(k, matmul(ts({2, 1, 64}), ts({2, 64, 1}), rf({2, 1, 1}), true), "dot_fma needs rank-2 operands or a batch of 1");
  // A tile of dots: rows of the lhs (at any stride) and columns of a column-major rhs, the output in memory.
  const TensorSpec cols = ts({64, 3}, Level::L1, Layout::col_major());
  TensorSpec rows = ts({4, 64}, Level::L1);
  rows.contiguous = false;
  accepts(k, matmul(rows, cols, ts({4, 3}, Level::L1), true));
  accepts(k, matmul(ts({1, 4, 64}), ts({1, 64, 3}, Level::L1, Layout::col_major()), ts({1, 4, 3}), true));
  rejects(k, matmul(rows, cols, rf({4, 3}), true), "the output operand 2 (4x3 RF) is not in memory");
  rejects(k, matmul(rows, ts({64, 3}), ts({4, 3}), true),
          "the columns of operand 1 (64x3 GL) are not dense runs in memory (row)");
  rejects(k, matmul(ts({4, 64}, Level::L1, Layout::blocked(1, 16)), cols, ts({4, 3}), true),
          "the rows of operand 0 (4x64 L1) are not dense runs in memory (blk1:16)");
  // 6 x 4 dots and the 10 runs each step loads take 34 registers; AVX-512 has 32, AVX2 16.
  accepts(k, matmul(ts({5, 64}), ts({64, 4}, Level::L1, Layout::col_major()), ts({5, 4}), true));
  rejects(k, matmul(ts({6, 64}), ts({64, 4}, Level::L1, Layout::col_major()), ts({6, 4}), true),
          "needs 34 vector registers (24 dots, 10 runs loaded per step), the target has 32");
}

namespace {
Spec reduce(std::uint8_t axis, TensorSpec in, TensorSpec out, bool acc = true) {
  return Spec{ReduceSum{axis, acc}, {std::move(in), std::move(out)}, false};
}
}  // namespace

TEST_CASE("vec_sum_run: the innermost axis of one dense run of whole registers into one RF element", "[kernel]") {
  const auto k = KernelKind::vec_sum_run;
  accepts(k, reduce(1, ts({1, 64}), rf({1})));
  accepts(k, reduce(2, ts({1, 1, 32}, Level::L2), rf({1, 1})));
  rejects(k, reduce(1, ts({1, 64}), rf({1}), false), "does not accumulate");
  rejects(k, reduce(0, ts({16, 1}), rf({1})), "the reduced axis 0 is not the innermost of operand 0 (16x1 GL)");
  rejects(k, reduce(1, ts({2, 16}), rf({2})), "operand 0 (2x16 GL) is not one row (32 elements)");
  rejects(k, reduce(1, ts({1, 24}), rf({1})), "k = 24 is not a multiple of the vector size 16");
  rejects(k, reduce(1, ts({1, 32}), ts({1})), "the output operand 1 (1 GL) is not in RF");
  rejects(k, reduce(1, vec({1, 16}), rf({1})), "operand 0 (1x16 VRF) is not in memory");
  rejects(k, reduce(1, ts({1, 32}), rf({1})), "has no vector registers", scalar_target());
  rejects(k, matmul(ts({1, 32}), ts({32, 1}), rf(), true), "implements reducesum[acc], not matmul");
}

TEST_CASE("vec_sum_rows: an outer axis into row-major output registers, input registers dense rows", "[kernel]") {
  const auto k = KernelKind::vec_sum_rows;
  accepts(k, reduce(0, ts({64, 32}), vec({32})));
  accepts(k, reduce(0, ts({1, 16}, Level::L1), vec({16})));
  TensorSpec strided = ts({4, 16});
  strided.contiguous = false;  // rows of a wider matrix
  accepts(k, reduce(0, strided, vec({16})));
  accepts(k, reduce(1, ts({2, 5, 16}), vec({2, 16})));  // each step along the axis: two registers, 80 apart
  rejects(k, reduce(0, ts({4, 16}), vec({16}), false), "does not accumulate");
  rejects(k, reduce(1, ts({16, 16}), vec({16})), "the reduced axis 1 is the innermost of operand 0 (16x16 GL)");
  rejects(k, reduce(0, ts({4, 16}), ts({16}, Level::L1)), "the output operand 1 (16 L1) is not in VRF");
  rejects(k, reduce(0, ts({4, 2, 8}), ts({2, 8}, Level::VRF, Layout::col_major(), 16)),
          "operand 1 (2x8 VRF) is neither row-major nor register panels");
  rejects(k, reduce(0, vec({1, 16}), vec({16})), "operand 0 (1x16 VRF) is not in memory");
  // Register panels: each output row's last register partial, its input rows loaded masked.
  accepts(k, reduce(0, ts({67, 45}), panels({45})));
  accepts(k, reduce(1, ts({5, 67, 13}, Level::L1), panels({5, 13})));
  TensorSpec cols = ts({67, 45}, Level::GL, Layout::col_major());
  rejects(k, reduce(0, cols, panels({45})), "operand 0 (67x45 GL) is not dense rows at each step along axis 0 (col)");
  rejects(k, reduce(1, ts({2, 3, 8}), ts({2, 8}, Level::VRF, Layout::row_major(), 16)),
          "operand 0 (2x3x8 GL) is not whole registers of dense rows at each step along axis 1 (row)");
  rejects(k, reduce(0, ts({4, 16}), vec({16})), "has no vector registers", scalar_target());
}

TEST_CASE("vec_sum_runs: the innermost axis of a register's worth of dense rows into one register", "[kernel]") {
  const auto k = KernelKind::vec_sum_runs;
  accepts(k, reduce(1, ts({16, 32}), vec({16})));
  TensorSpec strided = ts({16, 32});
  strided.contiguous = false;  // rows of a wider matrix: each still one run
  accepts(k, reduce(1, strided, vec({16})));
  accepts(k, reduce(2, ts({2, 8, 16}, Level::L1), vec({2, 8})));
  accepts(k, reduce(1, ts({8, 8}), ts({8}, Level::VRF, Layout::row_major(), 8)), avx2());
  rejects(k, reduce(1, ts({16, 32}), vec({16}), false), "does not accumulate");
  rejects(k, reduce(0, ts({16, 16}), vec({16})), "the reduced axis 0 is not the innermost of operand 0 (16x16 GL)");
  rejects(k, reduce(1, ts({8, 32}), ts({8}, Level::VRF, Layout::row_major(), 16)),
          "operand 1 (8 VRF) has 8 elements, not one vector of 16 nor one row of fewer in register panels (row)");
  accepts(k, reduce(1, ts({3, 45}), ts({3}, Level::VRF, Layout::blocked(0, 16), 16)));  // a panel's partial register
  accepts(k, reduce(2, ts({1, 5, 45}), ts({1, 5}, Level::VRF, Layout::blocked(1, 16), 16)));
  rejects(k, reduce(2, ts({2, 5, 45}), ts({2, 5}, Level::VRF, Layout::blocked(1, 16), 16)),
          "operand 1 (2x5 VRF) has 10 elements, not one vector of 16 nor one row of fewer in register panels (blk1:16)");
  accepts(k, reduce(1, ts({16, 24}), vec({16})));  // each row's last register partial, loaded masked
  accepts(k, reduce(1, ts({16, 13}), vec({16})));
  accepts(k, reduce(1, ts({8, 45}), ts({8}, Level::VRF, Layout::row_major(), 8)), avx2());
  rejects(k, reduce(1, vec({16, 16}), vec({16})), "operand 0 (16x16 VRF) is not in memory");
  rejects(k, reduce(1, ts({16, 16}, Level::GL, Layout::col_major()), vec({16})),
          "the rows of operand 0 (16x16 GL) are not dense runs (col)");
  rejects(k, reduce(2, ts({2, 8, 16}), ts({2, 8}, Level::VRF, Layout::col_major(), 16)),
          "operand 1 (2x8 VRF) is not row-major");
  rejects(k, reduce(1, ts({16, 16}), vec({16})), "has no vector registers", scalar_target());
}

TEST_CASE("direct_conv: conv[acc] with a one-element RF output, image and filters anywhere but VRF", "[kernel]") {
  const auto k = KernelKind::direct_conv;
  const auto conv = [](TensorSpec img, TensorSpec f, TensorSpec out, bool acc = true) {
    return Spec{Conv{acc}, {std::move(img), std::move(f), std::move(out)}, false};
  };
  accepts(k, conv(ts({5, 5}, Level::L1), ts({5, 5, 1}), rf({1, 1, 1})));
  accepts(k, conv(ts({3, 2, 4}), rf({3, 2, 4, 1}), rf({1, 1, 1})));
  accepts(k, conv(ts({1, 3, 3, 2}), ts({3, 3, 2, 1}), rf({1, 1, 1, 1})), scalar_target());
  rejects(k, conv(ts({5, 5}), ts({5, 5, 1}), rf({1, 1, 1}), false), "does not accumulate");
  rejects(k, matmul(ts({1, 1}), ts({1, 1}), rf(), true), "implements conv[acc], not matmul");
  rejects(k, conv(ts({5, 6}), ts({5, 5, 1}), rf({1, 2, 1})), "has 2 elements, not 1");
  rejects(k, conv(ts({5, 5}), ts({5, 5, 1}), ts({1, 1, 1})), "is not in RF");
  rejects(k, conv(ts({1, 16}, Level::VRF, Layout::row_major(), 16), ts({1, 16, 1}), rf({1, 1, 1})),
          "is in VRF; direct_conv does not read VRF");
  Conv padded{true};
  padded.pad = {1, 0};
  const Spec with_padding{padded, {ts({1, 3}), ts({3, 3, 1}), rf({1, 1, 1})}, false};
  rejects(k, with_padding, "the conv is padded (1x0)");
  Conv strided{true};
  strided.stride = {2, 2};
  const Spec with_stride{strided, {ts({4, 4}), ts({3, 3, 1}), rf({1, 1, 1})}, false};
  accepts(k, with_stride);
}

TEST_CASE("kernels_for lists the legal kernels in KernelKind order", "[kernel]") {
  CHECK(kernels_for(move_spec(ts({1, 1}), rf()), avx512()) == std::vector{KernelKind::scalar_copy});
  CHECK(kernels_for(move_spec(ts({1, 16}), vec({1, 16})), avx512()) == std::vector{KernelKind::vec_load});
  CHECK(kernels_for(matmul(ts({4, 4}), ts({4, 4}), ts({4, 4}), true), avx512()).empty());
  CHECK(kernels_for(zero(vec({1, 16})), avx512()) == std::vector{KernelKind::vec_zero});
  CHECK(kernels_for(reduce(1, ts({1, 16}), rf({1})), avx512()) == std::vector{KernelKind::vec_sum_run});
}
