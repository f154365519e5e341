// Kernel bodies in C. Scalar kernels read and write single elements; vector kernels name whole registers
// (whole_register asserts the view is exactly one, in lane order, or the partial register that ends a row in
// register panels, which loads and stores move masked); memory sides of vector moves must be one dense run, which
// the kernels' legality rules promise and this file checks. The summing kernels are in c_sums.cpp.
#include "codegen/c_kernels.h"

#include "codegen/c_sums.h"
#include "codegen/kernel_views.h"
#include "impl/tiling.h"
#include "spec/conv_geometry.h"
#include "spec/error.h"

namespace kriek::codegen {
namespace {

std::string binary_expr(BinaryOp op, const std::string& a, const std::string& b) {
  switch (op) {
    case BinaryOp::add: return a + " + " + b;
    case BinaryOp::mul: return a + " * " + b;
    case BinaryOp::sub: return a + " - " + b;
    case BinaryOp::max: return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
  }
  return "0";
}

std::string vector_binary(const VectorIsa& isa, BinaryOp op, const std::string& a, const std::string& b) {
  switch (op) {
    case BinaryOp::add: return isa.add + "(" + a + ", " + b + ")";
    case BinaryOp::mul: return isa.mul + "(" + a + ", " + b + ")";
    case BinaryOp::sub: return isa.sub + "(" + a + ", " + b + ")";
    // max(a, b) = a < b ? b : a; max_ps returns its second operand when either is NaN.
    case BinaryOp::max: return isa.max + "(" + b + ", " + a + ")";
  }
  return "";
}

const VectorIsa& need(const VectorIsa* isa, KernelKind k) {
  KRIEK_ASSERT(isa != nullptr, "vector kernel ", kernel_name(k), " on a scalar target");
  return *isa;
}

/// Opens one C loop per dimension of `shape` with extent above 1 (counted in `opened`, for the caller to close)
/// and returns the index they make: the loop variables, 0 where the extent is 1.
Coord open_loops(CWriter& w, const Shape& shape, const std::string& prefix, int& opened) {
  Coord index(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      index[d] = 0;
      continue;
    }
    const std::string var = w.fresh(prefix);
    w.open("for (int64_t " + var + " = 0; " + var + " < " + std::to_string(shape[d]) + "; ++" + var + ")");
    ++opened;
    index[d] = Affine::variable(var);
  }
  return index;
}

/// out += sum over the window of image * filters (impl/interpreter's conv_add), as loops over the filter shape.
void direct_conv(CWriter& w, const CView& img, const CView& filters, const CView& out) {
  const std::string acc = w.fresh("acc");
  const Coord origin = zeros(out.rank());
  w.open("");
  w.line("float " + acc + " = " + element(out, origin) + ";");
  const std::size_t lead = conv_row_dim(img.rank());
  int opened = 0;
  const Coord fi = open_loops(w, filters.shape, "f", opened);
  Coord ii = zeros(img.rank());
  for (std::size_t d = 0; d + lead < img.rank(); ++d) ii[d + lead] = fi[d];
  w.line(acc + " += " + element(img, ii) + " * " + element(filters, fi) + ";");
  while (opened-- > 0) w.close();
  w.line(element(out, origin) + " = " + acc + ";");
  w.close();
}

void bcast_fma(CWriter& w, const VectorIsa& isa, const CView& a, const CView& b, const CView& c) {
  const std::int64_t m = c.shape[c.rank() - 2], n = c.shape.back(), width = isa.width;
  std::vector<std::string> bregs;
  for (std::int64_t j = 0; j < n; j += width) {
    const CView row = b.sub(matrix_at(b, 0, j), matrix_row(b, std::min(width, n - j)));
    if (row.storage != Storage::memory) {
      bregs.push_back(whole_register(row));
      continue;
    }
    // B read from memory: one load per register (masked for a row's partial last one), shared by the m rows.
    bregs.push_back(w.fresh("b"));
    w.line("const " + isa.type + " " + bregs.back() + " = " +
           load_register(isa, row, KernelKind::bcast_fma, std::min(width, n - j)) + ";");
  }
  for (std::int64_t i = 0; i < m; ++i) {
    const std::string s = w.fresh("s");
    w.open("");
    w.line("const " + isa.type + " " + s + " = " + isa.broadcast + "(" + element(a, matrix_at(a, i, 0)) + ");");
    for (std::int64_t j = 0; j < n; j += width) {
      const std::string creg = whole_register(c.sub(matrix_at(c, i, j), matrix_row(c, std::min(width, n - j))));
      w.line(creg + " = " + isa.fmadd + "(" + s + ", " + bregs[static_cast<std::size_t>(j / width)] + ", " + creg + ");");
    }
    w.close();
  }
}

}  // namespace

std::string run_address(const CView& v, KernelKind k) {
  KRIEK_ASSERT(v.storage == Storage::memory, kernel_name(k), ": ", v.base, " is not in memory");
  KRIEK_ASSERT(is_dense_run(v), kernel_name(k), ": the elements of ", v.base, " at ", offset_text(v, zeros(v.rank())),
               " are not one dense run");
  return address(v, zeros(v.rank()));
}

std::string load_register(const VectorIsa& isa, const CView& v, KernelKind k, std::int64_t lanes) {
  const std::string at = run_address(v, k);
  return lanes == isa.width ? isa.load + "(" + at + ")" : masked_load(isa, at, lanes);
}

void emit_copy(CWriter& w, const CView& from, const CView& to) {
  KRIEK_ASSERT(from.shape == to.shape, "copy between views of different shapes");
  for (auto e : from.shape) {
    if (e <= 0) return;
  }
  int opened = 0;
  const Coord index = open_loops(w, from.shape, "c", opened);
  w.line(element(to, index) + " = " + element(from, index) + ";");
  while (opened-- > 0) w.close();
}

void emit_zero(CWriter& w, const CView& to) {
  for (auto e : to.shape) {
    if (e <= 0) return;
  }
  int opened = 0;
  const Coord index = open_loops(w, to.shape, "c", opened);
  w.line(element(to, index) + " = 0.0f;");
  while (opened-- > 0) w.close();
}

void emit_kernel(CWriter& w, KernelKind k, const Spec& spec, const std::vector<CView>& ops, const VectorIsa* isa) {
  KRIEK_ASSERT(ops.size() == spec.operands.size(), "kernel ", kernel_name(k), " given ", ops.size(), " operands");
  const CView& out = ops.back();
  auto at0 = [](const CView& v) { return element(v, zeros(v.rank())); };
  switch (k) {
    case KernelKind::scalar_copy: w.line(at0(out) + " = " + at0(ops[0]) + ";"); return;
    case KernelKind::scalar_zero: w.line(at0(out) + " = 0.0f;"); return;
    case KernelKind::scalar_unary: {
      const std::string x = at0(ops[0]);
      w.line(at0(out) + " = " + x + " < 0.0f ? 0.0f : " + x + ";");
      return;
    }
    case KernelKind::scalar_binary:
      w.line(at0(out) + " = " + binary_expr(std::get<Binary>(spec.op).op, at0(ops[0]), at0(ops[1])) + ";");
      return;
    case KernelKind::scalar_mult_add: w.line(at0(out) + " += " + at0(ops[0]) + " * " + at0(ops[1]) + ";"); return;
    case KernelKind::scalar_reduce_add: w.line(at0(out) + " += " + at0(ops[0]) + ";"); return;
    case KernelKind::direct_conv: direct_conv(w, ops[0], ops[1], out); return;
    case KernelKind::vec_load:
      w.line(whole_register(out) + " = " + load_register(need(isa, k), ops[0], k, volume(out.shape)) + ";");
      return;
    case KernelKind::vec_store: {
      const VectorIsa& v = need(isa, k);
      const std::string at = run_address(out, k);
      if (partial_register(ops[0])) {
        w.line(masked_store(v, at, volume(ops[0].shape), whole_register(ops[0])));
      } else {
        w.line(v.store + "(" + at + ", " + whole_register(ops[0]) + ");");
      }
      return;
    }
    case KernelKind::vec_zero: w.line(whole_register(out) + " = " + need(isa, k).zero + "();"); return;
    case KernelKind::vec_unary: {
      const VectorIsa& v = need(isa, k);
      // max_ps(0, x) = 0 > x ? 0 : x, like the reference's max(x, 0) (NaN stays NaN).
      w.line(whole_register(out) + " = " + v.max + "(" + v.zero + "(), " + whole_register(ops[0]) + ");");
      return;
    }
    case KernelKind::vec_binary: {
      const VectorIsa& v = need(isa, k);
      const BinaryOp op = std::get<Binary>(spec.op).op;
      // An input in memory is one element, broadcast.
      auto reg = [&](const CView& in) {
        return in.storage == Storage::vector_registers ? whole_register(in) : v.broadcast + "(" + at0(in) + ")";
      };
      w.line(whole_register(out) + " = " + vector_binary(v, op, reg(ops[0]), reg(ops[1])) + ";");
      return;
    }
    case KernelKind::bcast_fma: bcast_fma(w, need(isa, k), ops[0], ops[1], out); return;
    case KernelKind::dot_fma: {
      const DotRuns d = dot_runs(ops[0], ops[1], out);
      chained_sums(w, need(isa, k), k, d.rows, d.cols, d.outs);
      return;
    }
    case KernelKind::vec_sum_run: chained_sums(w, need(isa, k), k, {ops[0]}, {}, {out}); return;
    case KernelKind::vec_sum_rows: sum_rows(w, need(isa, k), std::get<ReduceSum>(spec.op).axis, ops[0], out); return;
    case KernelKind::vec_sum_runs:
      sum_runs(w, need(isa, k), ops[0], out, sum_runs_source(spec.input(0).level, ops[0]));
      return;
  }
  KRIEK_ASSERT(false, "no C for kernel ", static_cast<int>(k));
}

}  // namespace kriek::codegen
