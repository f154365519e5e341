// Hand-built Impl trees shared by the printer's golden tests and the interpreter's tests: each covers some node
// kinds (loops with boundaries, moves to blocked layouts and registers, blocks, slides, pipelines, kernels).
#pragma once

#include "impl/node.h"

namespace kriek::test {

/// Figure 1 of the report (accumulating, so the split is sound): matmul[acc] 128x128x128 tiled 32x32, lhs moved to L1, split 64, rhs and out moved to L1.
ImplPtr figure1_tree();
/// Matmul 10x6x7 (accumulating) tiled 4x3: four boundary patterns, holes in every body.
ImplPtr boundary_tree();
/// A parallel tile loop of a matmul, then a split with a remainder, then to_accum's Block.
ImplPtr ptile_block_tree();
/// Matmul[acc] 3x4x5 down to scalar_mult_add: rhs moved to L1 blk1:2 (padded), out moved to RF with scalar_copy.
ImplPtr scalar_tree();
/// Matmul 3x4x32 on avx512: out moved to VRF (store only), zeroed by vec_zero, k split by 1, rhs moved to VRF,
/// then bcast_fma; vec_load/vec_store loops as prologues and epilogues.
ImplPtr micro_kernel_tree();
/// relu 2x32 tiled 1x16, in and out moved to VRF, vec_unary.
ImplPtr relu_vector_tree();
/// Conv 10x12 with 3x3x4 filters: slide[3] over output rows with the window in L1 col-major (a boundary tile).
ImplPtr slide_tree();
/// Conv 9x11x2 with 3x2x2x3 filters: a slide over both image dimensions, boundaries in both.
ImplPtr slide2_tree();
/// The Figure 2 pipeline compose[conv, reducesum, conv], cut at 1 with a blocked buffer, its tail cut again.
ImplPtr pipeline_tree();

}  // namespace kriek::test
