// Kernel bodies in LLVM IR, one for one with c_kernels.cpp: scalar statements, vector operations on register
// slots (whole <W x float> values; a row's partial last register in register panels loaded and stored with
// llvm.masked.load/store), the broadcast-FMA outer product with llvm.fma, and the direct convolution's loop (the
// summing kernels are in llvm_sums.cpp, the helpers they share in llvm_kernels_impl.h). Comparisons keep the C
// backend's NaN behaviour (max(a, b) = a < b ? b : a).
#include "codegen/llvm_kernels_impl.h"
#include "spec/conv_geometry.h"

namespace kriek::codegen {

void Kernels::direct_conv(const CView& img, const CView& filters, const CView& out) {
  Value* acc = c.slot(f32());
  b.CreateStore(at0(out), acc);
  const std::size_t lead = conv_row_dim(img.rank());
  int opened = 0;
  const Coord fi = open_loops(filters.shape, opened);
  Coord ii = zeros(img.rank());
  for (std::size_t d = 0; d + lead < img.rank(); ++d) ii[d + lead] = fi[d];
  b.CreateStore(mult_add(load(img, ii), load(filters, fi), b.CreateLoad(f32(), acc)), acc);
  close_loops(opened);
  store0(b.CreateLoad(f32(), acc), out);
}

void Kernels::bcast_fma(const CView& a, const CView& bm, const CView& out) {
  const std::int64_t m = out.shape[out.rank() - 2], n = out.shape.back(), width = c.width();
  std::vector<Value*> rows;
  for (std::int64_t j = 0; j < n; j += width) {
    const std::int64_t lanes = std::min(width, n - j);
    const CView row = bm.sub(matrix_at(bm, 0, j), matrix_row(bm, lanes));
    rows.push_back(row.storage == Storage::memory ? load_register(run(row, KernelKind::bcast_fma), lanes) : get(row));
  }
  for (std::int64_t i = 0; i < m; ++i) {
    Value* s = splat(load(a, matrix_at(a, i, 0)));
    for (std::int64_t j = 0; j < n; j += width) {
      const CView reg = out.sub(matrix_at(out, i, j), matrix_row(out, std::min(width, n - j)));
      set(reg, fma(s, rows[static_cast<std::size_t>(j / width)], get(reg)));
    }
  }
}

void emit_ir_kernel(IrKernelContext& c, KernelKind k, const Spec& spec, const std::vector<CView>& ops) {
  KRIEK_ASSERT(ops.size() == spec.operands.size(), "kernel ", kernel_name(k), " given ", ops.size(), " operands");
  Kernels g{c};
  llvm::IRBuilderBase& b = g.b;
  const CView& out = ops.back();
  Value* zero = llvm::ConstantFP::get(b.getFloatTy(), 0.0);
  switch (k) {
    case KernelKind::scalar_copy: return g.store0(g.at0(ops[0]), out);
    case KernelKind::scalar_zero: return g.store0(zero, out);
    case KernelKind::scalar_unary: {
      Value* x = g.at0(ops[0]);
      return g.store0(b.CreateSelect(b.CreateFCmpOLT(x, zero), zero, x), out);
    }
    case KernelKind::scalar_binary:
      return g.store0(g.binary(std::get<Binary>(spec.op).op, g.at0(ops[0]), g.at0(ops[1])), out);
    case KernelKind::scalar_mult_add:
      return g.store0(g.mult_add(g.at0(ops[0]), g.at0(ops[1]), g.at0(out)), out);
    case KernelKind::scalar_reduce_add: return g.store0(b.CreateFAdd(g.at0(out), g.at0(ops[0])), out);
    case KernelKind::direct_conv: return g.direct_conv(ops[0], ops[1], out);
    case KernelKind::vec_load: return g.set(out, g.load_register(g.run(ops[0], k), volume(out.shape)));
    case KernelKind::vec_store: {
      if (partial_register(ops[0])) {
        g.store_lanes(g.get(ops[0]), g.run(out, k), volume(ops[0].shape));
      } else {
        b.CreateAlignedStore(g.get(ops[0]), g.run(out, k), llvm::Align(4));
      }
      return;
    }
    case KernelKind::vec_zero: return g.set(out, llvm::Constant::getNullValue(g.vec()));
    case KernelKind::vec_unary: {
      // 0 > x ? 0 : x, like the reference's max(x, 0) (NaN stays NaN).
      Value* x = g.get(ops[0]);
      Value* zeros = llvm::Constant::getNullValue(g.vec());
      return g.set(out, b.CreateSelect(b.CreateFCmpOGT(zeros, x), zeros, x));
    }
    case KernelKind::vec_binary: {
      // An input in memory is one element, broadcast.
      auto reg = [&](const CView& in) {
        return in.storage == Storage::vector_registers ? g.get(in) : g.splat(g.at0(in));
      };
      return g.set(out, g.binary(std::get<Binary>(spec.op).op, reg(ops[0]), reg(ops[1])));
    }
    case KernelKind::bcast_fma: return g.bcast_fma(ops[0], ops[1], out);
    case KernelKind::dot_fma: {
      const DotRuns d = dot_runs(ops[0], ops[1], out);
      return g.chained_sums(k, d.rows, d.cols, d.outs);
    }
    case KernelKind::vec_sum_run: return g.chained_sums(k, {ops[0]}, {}, {out});
    case KernelKind::vec_sum_rows: return g.sum_rows(std::get<ReduceSum>(spec.op).axis, ops[0], out);
    case KernelKind::vec_sum_runs: return g.sum_runs(ops[0], out, sum_runs_source(spec.input(0).level, ops[0]));
  }
  KRIEK_ASSERT(false, "no LLVM IR for kernel ", static_cast<int>(k));
}

void emit_ir_copy(IrKernelContext& c, const CView& from, const CView& to) {
  KRIEK_ASSERT(from.shape == to.shape, "copy between views of different shapes");
  for (auto e : from.shape) {
    if (e <= 0) return;
  }
  Kernels g{c};
  int opened = 0;
  const Coord index = g.open_loops(from.shape, opened);
  g.store(g.load(from, index), to, index);
  g.close_loops(opened);
}

void emit_ir_zero(IrKernelContext& c, const CView& to) {
  for (auto e : to.shape) {
    if (e <= 0) return;
  }
  Kernels g{c};
  int opened = 0;
  const Coord index = g.open_loops(to.shape, opened);
  g.store(llvm::ConstantFP::get(g.b.getFloatTy(), 0.0), to, index);
  g.close_loops(opened);
}

}  // namespace kriek::codegen
