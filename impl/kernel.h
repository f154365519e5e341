// The leaf kernels a target provides: scalar ops on registers, vector loads/stores/zero/elementwise ops, and the
// broadcast-FMA outer product that updates a register-held output tile (the matmul micro-kernel). Each kernel
// has a legality rule on the Spec it implements; `kernels_for` lists those that implement a Spec.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "spec/enum_list.h"
#include "spec/spec.h"
#include "spec/target.h"

namespace kriek {

enum class KernelKind : std::uint8_t {
  // Scalar, one element, every operand in RF or addressed memory, output or inputs in RF as documented.
  scalar_mult_add,   ///< Matmul[acc] 1x1x1, all operands RF
  scalar_copy,       ///< Move of 1 element where the source or the destination is RF
  scalar_zero,       ///< Zero of 1 element in RF
  scalar_unary,      ///< Unary of 1 element, both in RF
  scalar_binary,     ///< Binary of 1 element, all in RF
  scalar_reduce_add, ///< ReduceSum[acc] of a 1-element... (in: 1x..x1 RF, out RF)
  // Vector (AVX-512 / AVX2): operands in VRF hold one register (vector_size elements).
  vec_load,          ///< Move of one vector from memory (GL/L2/L1, contiguous) into VRF
  vec_store,         ///< Move of one vector from VRF into memory (contiguous)
  vec_zero,          ///< Zero of one vector in VRF
  vec_unary,         ///< Unary of one vector, VRF to VRF
  vec_binary,        ///< Binary of one vector into VRF, each input one vector in VRF or one element in memory (broadcast)
  /// Matmul[acc] m×1 · 1×n → m×n: A in memory (each element broadcast), B one or more vectors in VRF or
  /// loaded from memory (whole registers of dense rows), C in VRF (m·n/vector_size registers, row-major). The
  /// register-tiled matmul micro-kernel.
  bcast_fma,
  /// Conv[acc] whose output is one element in RF: out += the dot product of the image window and the filters
  /// (the report's DirectConv, Figure 3); image and filters in RF or memory, none in VRF; no padding (any stride:
  /// the one output reads the window at the image's origin).
  direct_conv,
  /// Matmul[acc] m×k · k×n → m×n: the m·n dot products of the lhs rows and the rhs columns, each a dense run of k
  /// elements in memory (k a multiple of the vector size; the rhs column-major when n > 1), accumulated in vector
  /// registers (one per dot; several independent chains for a single dot) and summed into the output, one RF
  /// element or m·n elements in memory. The kernel of matrix-vector products and of a narrow rhs transposed,
  /// where no output dimension is wide enough for registers.
  dot_fma,
  /// ReduceSum[acc] over the input's innermost axis whose input is one dense run of k elements in memory (k a
  /// multiple of the vector size) and whose output is one RF element: dot_fma's accumulator chains adding the
  /// run's registers, then one lane reduction. The reduction of rows.
  vec_sum_run,
  /// ReduceSum[acc] over an axis other than the input's innermost, the output in VRF (whole row-major registers):
  /// for each of the k steps along the axis, every output register adds the input's matching register, read from
  /// memory (whole registers of dense rows). One independent chain per register, no lane reduction.
  vec_sum_rows,
  /// ReduceSum[acc] over the input's innermost axis of as many rows as a register has lanes, each row one dense
  /// run of k elements in memory (k a multiple of the vector size, rows at any stride), the output one VRF
  /// register: one accumulator chain per row, then the rows' sums transposed into the register's lanes (a tree of
  /// pairwise shuffles and adds) and added to it. A row's lane reduction amortized over a register of rows.
  vec_sum_runs,
};

/// True for kernels that work in vector registers (the vector kernels, and dot_fma and vec_sum_run, which
/// accumulate in them); false for the scalar ones and direct_conv.
constexpr bool uses_vector_registers(KernelKind k) {
  switch (k) {
    case KernelKind::scalar_mult_add:
    case KernelKind::scalar_copy:
    case KernelKind::scalar_zero:
    case KernelKind::scalar_unary:
    case KernelKind::scalar_binary:
    case KernelKind::scalar_reduce_add:
    case KernelKind::direct_conv: return false;
    case KernelKind::vec_load:
    case KernelKind::vec_store:
    case KernelKind::vec_zero:
    case KernelKind::vec_unary:
    case KernelKind::vec_binary:
    case KernelKind::bcast_fma:
    case KernelKind::dot_fma:
    case KernelKind::vec_sum_run:
    case KernelKind::vec_sum_rows:
    case KernelKind::vec_sum_runs: return true;
  }
  return true;
}

/// True for the kernels that carry the prefetches of a tile streamed from main memory (codegen/prefetch.h): the FMA
/// kernels, whose calls are spread evenly over a matmul's or conv's body and whose FMAs the prefetches hide behind.
constexpr bool carries_prefetches(KernelKind k) {
  switch (k) {
    case KernelKind::bcast_fma:
    case KernelKind::dot_fma: return true;
    case KernelKind::scalar_mult_add:
    case KernelKind::scalar_copy:
    case KernelKind::scalar_zero:
    case KernelKind::scalar_unary:
    case KernelKind::scalar_binary:
    case KernelKind::scalar_reduce_add:
    case KernelKind::direct_conv:
    case KernelKind::vec_load:
    case KernelKind::vec_store:
    case KernelKind::vec_zero:
    case KernelKind::vec_unary:
    case KernelKind::vec_binary:
    case KernelKind::vec_sum_run:
    case KernelKind::vec_sum_rows:
    case KernelKind::vec_sum_runs: return false;
  }
  return false;
}

/// The kernel's name as printed and as the REPL's `select` takes it, e.g. "bcast_fma" (empty for a byte that is
/// no KernelKind).
constexpr std::string_view kernel_name(KernelKind k) {
  switch (k) {
    case KernelKind::scalar_mult_add: return "scalar_mult_add";
    case KernelKind::scalar_copy: return "scalar_copy";
    case KernelKind::scalar_zero: return "scalar_zero";
    case KernelKind::scalar_unary: return "scalar_unary";
    case KernelKind::scalar_binary: return "scalar_binary";
    case KernelKind::scalar_reduce_add: return "scalar_reduce_add";
    case KernelKind::vec_load: return "vec_load";
    case KernelKind::vec_store: return "vec_store";
    case KernelKind::vec_zero: return "vec_zero";
    case KernelKind::vec_unary: return "vec_unary";
    case KernelKind::vec_binary: return "vec_binary";
    case KernelKind::bcast_fma: return "bcast_fma";
    case KernelKind::direct_conv: return "direct_conv";
    case KernelKind::dot_fma: return "dot_fma";
    case KernelKind::vec_sum_run: return "vec_sum_run";
    case KernelKind::vec_sum_rows: return "vec_sum_rows";
    case KernelKind::vec_sum_runs: return "vec_sum_runs";
  }
  return {};
}

/// Every kernel, in the enum's order. A new kernel fails to compile in kernel_name until named there, then this
/// static_assert until listed here; -Wswitch then names every other switch over kernels (legality, cost,
/// interpreter, C emitter).
inline constexpr std::array kAllKernels = {
    KernelKind::scalar_mult_add, KernelKind::scalar_copy, KernelKind::scalar_zero, KernelKind::scalar_unary,
    KernelKind::scalar_binary,   KernelKind::scalar_reduce_add, KernelKind::vec_load, KernelKind::vec_store,
    KernelKind::vec_zero,        KernelKind::vec_unary,   KernelKind::vec_binary, KernelKind::bcast_fma,
    KernelKind::direct_conv,     KernelKind::dot_fma,     KernelKind::vec_sum_run, KernelKind::vec_sum_rows,
    KernelKind::vec_sum_runs};
static_assert(lists_every_value(kAllKernels, kernel_name), "kAllKernels must list every KernelKind in order");

std::optional<KernelKind> parse_kernel(std::string_view name);

/// Why `k` cannot implement `spec` on `target`, or nullopt when it can.
std::optional<std::string> kernel_illegal(KernelKind k, const Spec& spec, const Target& target);

/// Independent accumulator chains dot_fma uses over `vectors` register-sized steps: the largest of 8, 4, 2, 1
/// that divides it (8 chains hide the FMA latency on two FMA ports).
std::int64_t dot_chains(std::int64_t vectors);
/// Accumulator chains per dot of a dot_fma of `dots` dots over `vectors` steps: dot_chains for one dot, else one
/// (the dots are the independent chains).
std::int64_t dot_fma_chains(std::int64_t dots, std::int64_t vectors);
/// Vector registers a dot_fma tile of m x n dots holds: one accumulator per dot and one register per lhs row and rhs
/// column run loaded each step.
constexpr std::int64_t dot_fma_registers(std::int64_t m, std::int64_t n) { return m * n + m + n; }
/// Whether a dot_fma of `dots` dots with registers of `width` lanes sums its lanes in transpose trees (a register
/// of dots at a time into the lanes of one: width - 1 steps of a shuffle, a blend and an add) rather than each
/// dot's alone (log2(width) steps of a shuffle and an add): from half a register of dots, where the tree takes
/// fewer shuffles (the port they share).
bool dot_fma_tree(std::int64_t dots, std::int64_t width);

/// Accumulator sets vec_sum_rows keeps for an output of `registers` registers summed over `steps` steps: enough
/// that 8 adds are in flight (two add ports of 4 cycles' latency) when the output alone has fewer, at most one per
/// step and 24 registers in all. Set c takes the steps j with j mod sets = c; the sets are added into the output
/// at the end.
std::int64_t sum_rows_sets(std::int64_t registers, std::int64_t steps);

/// The stores that write the first `lanes` lanes of a register (the partial register that ends a row in register
/// panels), as lane counts: one masked store with opmask registers (AVX-512); without (AVX2, whose masked store
/// vmaskmovps is microcoded on AMD, about 20 cycles on Zen 3), plain stores of 4, 2 and 1 lanes, largest first.
std::vector<std::int64_t> partial_register_stores(std::int64_t lanes, bool opmask);

/// Every kernel that implements `spec` on `target`, in KernelKind order.
std::vector<KernelKind> kernels_for(const Spec& spec, const Target& target);

}  // namespace kriek
