// The leaf kernels a target provides: scalar ops on registers, vector loads/stores/zero/elementwise ops, and the
// broadcast-FMA outer product that updates a register-held output tile (the matmul micro-kernel). Each kernel
// has a legality rule on the Spec it implements; `kernels_for` lists those that implement a Spec.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

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
  vec_binary,        ///< Binary of one vector, VRF operands
  /// Matmul[acc] m×1 · 1×n → m×n: A in memory (each element broadcast), B one or more vectors in VRF or
  /// loaded from memory (whole registers of dense rows), C in VRF (m·n/vector_size registers, row-major). The
  /// register-tiled matmul micro-kernel.
  bcast_fma,
  /// Conv[acc] whose output is one element in RF: out += the dot product of the image window and the filters
  /// (the report's DirectConv, Figure 3); image and filters in RF or memory, none in VRF; no padding (any stride:
  /// the one output reads the window at the image's origin).
  direct_conv,
  /// Matmul[acc] 1×k · k×1 → 1×1: a dot product of two dense runs of k elements in memory (k a multiple of the
  /// vector size), accumulated in vector registers (several independent chains) and summed into the output in
  /// RF. The kernel of matrix-vector products, where no output dimension is wide enough for registers.
  dot_fma,
};

inline constexpr int kKernelKindCount = static_cast<int>(KernelKind::dot_fma) + 1;

/// The kernel's name as printed and as the REPL's `select` takes it, e.g. "bcast_fma".
std::string_view kernel_name(KernelKind k);
std::optional<KernelKind> parse_kernel(std::string_view name);

/// Why `k` cannot implement `spec` on `target`, or nullopt when it can.
std::optional<std::string> kernel_illegal(KernelKind k, const Spec& spec, const Target& target);

/// Independent accumulator chains dot_fma uses over `vectors` register-sized steps: the largest of 8, 4, 2, 1
/// that divides it (8 chains hide the FMA latency on two FMA ports).
std::int64_t dot_chains(std::int64_t vectors);

/// Every kernel that implements `spec` on `target`, in KernelKind order.
std::vector<KernelKind> kernels_for(const Spec& spec, const Target& target);

}  // namespace kriek
