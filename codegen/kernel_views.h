// The views a kernel body touches, shared by the C and LLVM kernels (c_kernels.cpp and c_sums.cpp, llvm_kernels.cpp
// and llvm_sums.cpp) so that both read the same elements and registers: matrix elements and rows of rank-2 operands
// (or rank 3 with a batch of 1), the register-by-register pairing of vec_sum_rows, the rows vec_sum_runs reduces,
// and the order of the lane transpose trees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "codegen/c_view.h"
#include "spec/level.h"

namespace kriek::codegen {

/// The index of element (i, j) of a matrix view of rank 2, or of rank 3 with a batch of 1.
Coord matrix_at(const CView& v, std::int64_t i, std::int64_t j);
/// A 1 x `cols` extent in such a view.
Shape matrix_row(const CView& v, std::int64_t cols);

/// dot_fma's operands as runs: the rows of `a` (1 x k each), the columns of `b` (k x 1 each, dense in a column-major
/// tile) and the output elements, row-major (out[i * n + j] is the dot of row i and column j).
struct DotRuns {
  std::vector<CView> rows, cols, outs;
};
DotRuns dot_runs(const CView& a, const CView& b, const CView& out);

/// For vec_sum_rows (out += the sum of `in` over `axis`, out whole registers of `width` lanes or register panels):
/// calls `add` with each output register's view (fewer lanes for a panel row's partial last register) and the
/// dense run of `in` it adds at position `step` along the axis.
void for_each_row_register(std::size_t axis, const CView& in, const CView& out, std::int64_t width, const Affine& step,
                           const std::function<void(const CView& reg, const CView& run)>& add);
/// How many registers for_each_row_register visits.
std::int64_t row_register_count(std::size_t axis, const CView& in, const CView& out, std::int64_t width);

/// For vec_sum_runs (out += the sum of `in` over its innermost axis, out one register): the rows of `in` along
/// that axis, one per lane of `out`, in the row-major order of the other dimensions.
std::vector<CView> innermost_rows(const CView& in);

/// Each of `rows`' offset from the first in elements when all are a constant distance from it (the usual case:
/// rows of one buffer), else nullopt.
std::optional<std::vector<std::int64_t>> rows_apart(const std::vector<CView>& rows);

/// True when vec_sum_runs starts each of `rows` (of `k` elements, registers of `width` lanes) at a cache line: the
/// first lanes up to the line loaded masked, whole registers from the line on, the rest masked. Only for 16-lane
/// registers (a 64-byte load that is not aligned splits two lines: reducesum[axis=1] of 250 rows of 333 floats ran
/// at 21 GFLOP/s, of 320 or 336 at 40, on Sapphire Rapids), rows not all a multiple of 16 elements apart (those
/// share the buffer's alignment, aligned as allocated), and rows of at least 14 registers: the masks and the
/// extra loads cost each row a fixed amount (64 rows, 1 thread: 45, 100 and 200 floats 44%, 33% and 10% slower
/// peeled; 250, 300, 333 and 500 floats 37%, 26%, 50% and 37% faster).
bool sum_runs_peel(const std::vector<CView>& rows, std::int64_t k, std::int64_t width);
/// The fewest whole registers per row for which sum_runs_peel starts rows at their cache lines.
inline constexpr std::int64_t kPeelMinRegisters = 14;

/// The accumulator chains per row with which vec_sum_runs sums rows of `k` elements (registers of `width` lanes)
/// that it reads from level `from`, at most `rows_per_set` of them starting in one L1 set (rows_per_l1_set): 8
/// from L2, the rows then summed two at a time; from main memory as many as put at most kL1FewestWays rows of one
/// set in flight (2 for rows 4 KiB apart: 8 rows at a time); 1 (every row at once, one chain each) elsewhere, and
/// below 16 whole registers per row. Fewer rows in flight stream faster from L2: reducesum[axis=1] 256x256 in L2,
/// hand-written C of the same loads, adds and transpose, 15 alternating rounds on a Cascade Lake VM: 16 rows x 1
/// chain 1.00, 8 x 2 0.92-0.96, 4 x 4 0.83-0.94, 2 x 8 0.80-0.83 the time (the chains' sums, 7 adds a row, are free
/// beside the stream); the kernels emitted so, from L2: 256x256 0.94x, 32x512 0.90x, 128x1024 0.85x; rows started
/// at their lines (sum_runs_peel), 250x333, 0.88-0.99x. Not from L1, where the adds and the transpose are the bound
/// (64x128, L1-resident, 4 chains: 1.09x), nor from main memory, where many rows in flight hide the latency
/// (512x512, 1 MiB, from L3: 1.5x), unless they share sets: 16 rows 4 KiB apart evict each other's lines (and the
/// prefetched ones) from 8 ways before they are read. The DP's picks (16-row tiles), REPL `run`, AMD Zen 4 VM, 1
/// thread (2 threads alike): reducesum[axis=1] 1024x1024 70.5 us with 1 chain, 47.0 with 2, 46.3 with 4, 52.1 with
/// 8; 2048x2048 (2 threads) 159 -> 114 us, 64x8192 20.6 -> 13.1 us. Priced alike by the cost model. Only for
/// 16-lane registers: AVX2's 16 registers hold no 8 chains beside the rows' sums.
std::int64_t sum_runs_chains(std::int64_t k, std::int64_t width, Level from, std::int64_t rows_per_set);

/// Bytes of one way of an x86 L1 data cache (indexed by the 4 KiB page offset: its capacity is ways x 4 KiB), and
/// the fewest ways of one with AVX-512 (Skylake-X, Cascade Lake, Zen 4: 32 KiB 8-way).
inline constexpr std::int64_t kL1WayBytes = 4096;
inline constexpr std::int64_t kL1FewestWays = 8;
/// The most of `rows` whose first lines fall into one set of an L1 data cache (rows 4 KiB apart all do), when
/// they are a constant distance apart; else 1.
std::int64_t rows_per_l1_set(const std::vector<CView>& rows);

/// The level vec_sum_runs streams `in` from, for sum_runs_chains: the Spec's `level`, except that a buffer in main
/// memory of at most kL2ResidentBytes is read from L2: a kernel run again on its operands, or right after the op
/// that wrote them, finds a buffer that small there. reducesum[axis=1] with its input in main memory, the same
/// Impl emitted with 8 chains against 1, 5 alternating rounds (REPL `compare`, Cascade Lake VM, one core): 64x256
/// 0.82x the time, 32x1024 0.73x, 16x2048 0.83x, 128x512 0.90x, 256x256 0.95x; the fidelity suite's pick for
/// 64x256 had measured 1.21-1.26x the time of its fastest candidate, an alias of its input in L2.
Level sum_runs_source(Level level, const CView& in);
/// A quarter of the L2 of every core with 16-lane registers (1 MiB and up), the only ones with several chains.
inline constexpr std::int64_t kL2ResidentBytes = 256 * 1024;

/// `i`'s lowest `bits` bits in reverse order: the lane transpose trees of both backends place register r at
/// bit_reverse(r) so that lane r ends as its sum.
constexpr std::size_t bit_reverse(std::size_t i, unsigned bits) {
  std::size_t r = 0;
  for (unsigned b = 0; b < bits; ++b) r |= ((i >> b) & 1u) << (bits - 1 - b);
  return r;
}

}  // namespace kriek::codegen
