// The C of the summing kernels (c_sums.cpp): chained sums over dense runs (dot_fma, vec_sum_run), sums along an
// outer axis (vec_sum_rows) and rows summed into a register's lanes (vec_sum_runs).
#pragma once

#include <cstddef>
#include <vector>

#include "codegen/c_view.h"
#include "codegen/c_writer.h"
#include "codegen/vector_isa.h"
#include "impl/kernel.h"

namespace kriek::codegen {

/// outs[s] += the sum over k elements of dense runs: for dot_fma the dot of row s / n of `rows` and column s % n of
/// `cols`, for vec_sum_run (`cols` empty) its one row alone; each sum in dot_fma_chains vector accumulators
/// stepping through the runs' whole registers in one C loop (every run loaded once per step), a partial last
/// register masked, then its chains summed, then its lanes (a register of sums at a time in a transpose tree where
/// dot_fma_tree says so).
void chained_sums(CWriter& w, const VectorIsa& isa, KernelKind kind, const std::vector<CView>& rows,
                  const std::vector<CView>& cols, const std::vector<CView>& outs);

/// out += the sum of `in` over `axis` (not its innermost), out in registers (vec_sum_rows).
void sum_rows(CWriter& w, const VectorIsa& isa, std::size_t axis, const CView& in, const CView& out);

/// out += the sums of the rows of `in` along its innermost axis, one per lane of the register `out` (vec_sum_runs;
/// `from`: the level of `in`).
void sum_runs(CWriter& w, const VectorIsa& isa, const CView& in, const CView& out, Level from);

}  // namespace kriek::codegen
