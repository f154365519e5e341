// Kernel names and legality: which Specs each leaf kernel of a target implements, with a reason naming the
// offending operand and value whenever a rule fails (see impl/kernel.h for the kernels).
#include <array>
#include <sstream>

#include "impl/kernel.h"

#include "impl/tiling.h"
#include "spec/overloaded.h"
#include "spec/reasons.h"

namespace kriek {
namespace {

using Why = std::optional<std::string>;

template <class... Args>
Why fail(const Args&... args) {
  if (reasons_quiet()) return std::string();
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

bool is_memory(Level l) { return l == Level::GL || l == Level::L2 || l == Level::L1; }

/// The name of operand i in reasons: "operand 1 (16x1 L1)", spelled out only when a reason is written.
struct OperandName {
  const Spec& s;
  std::size_t i;
  friend std::ostream& operator<<(std::ostream& out, const OperandName& n) {
    return out << "operand " << n.i << " (" << shape_text(n.s.operands[n.i].shape) << " "
               << level_name(n.s.operands[n.i].level) << ")";
  }
};
OperandName name(const Spec& s, std::size_t i) { return OperandName{s, i}; }

Why all_f32(const Spec& s) {
  for (std::size_t i = 0; i < s.operands.size(); ++i) {
    if (s.operands[i].dtype != Dtype::f32) return fail(name(s, i), " is ", dtype_name(s.operands[i].dtype), ", not f32");
  }
  return std::nullopt;
}

/// Scalar kernels: every operand one element, the output in RF, no operand in VRF.
Why scalar_rules(const Spec& s, bool output_in_rf = true) {
  for (std::size_t i = 0; i < s.operands.size(); ++i) {
    if (s.operands[i].elements() != 1) return fail(name(s, i), " has ", s.operands[i].elements(), " elements, not 1");
    if (s.operands[i].level == Level::VRF) return fail(name(s, i), " is in VRF; scalar kernels do not read VRF");
  }
  if (output_in_rf && s.output().level != Level::RF) return fail("the output ", name(s, s.operands.size() - 1), " is not in RF");
  return std::nullopt;
}

/// Vector kernels: a vector ISA, and every VRF operand holds registers of the target's f32 width.
Why vector_rules(const Spec& s, const Target& t) {
  if (t.isa == Isa::scalar) return fail("target ", t.name, " has no vector registers");
  const std::uint32_t width = t.vector_elements(Dtype::f32);
  for (std::size_t i = 0; i < s.operands.size(); ++i) {
    const TensorSpec& o = s.operands[i];
    if (o.level == Level::VRF && o.vector_size != width) {
      return fail(name(s, i), " has vector size ", o.vector_size, ", the target's is ", width);
    }
  }
  return std::nullopt;
}

/// One register: level VRF and exactly one register's elements, in register panels one row of at most that many
/// (fewer: a partial register, whose last lanes are padding, which loads zero and stores leave alone).
Why one_vector(const Spec& s, std::size_t i, const Target& t) {
  const TensorSpec& o = s.operands[i];
  if (o.level != Level::VRF) return fail(name(s, i), " is not in VRF");
  const std::int64_t width = t.vector_elements(Dtype::f32);
  // In register panels a register is (part of) one row: a tile of several rows is several registers.
  if (in_register_panels(o) ? o.elements() <= width && o.shape.back() == o.elements() : o.elements() == width) {
    return std::nullopt;
  }
  return fail(name(s, i), " has ", o.elements(), " elements, not one vector of ", width,
              " nor one row of fewer in register panels (", layout_text(o.layout), ")");
}

/// vec_binary broadcasts an input of one element read from memory.
bool broadcast_element(const TensorSpec& t) { return t.elements() == 1 && is_memory(t.level); }

Why equal_shapes(const Spec& s) {
  for (std::size_t i = 0; i + 1 < s.operands.size(); ++i) {
    if (s.operands[i].shape != s.output().shape) {
      return fail(name(s, i), " and the output ", shape_text(s.output().shape), " differ in shape");
    }
  }
  return std::nullopt;
}

/// A move between memory and one vector: the memory side contiguous, with the register's element order.
Why vector_move(const Spec& s, const Target& t, std::size_t mem, std::size_t reg) {
  if (Why w = one_vector(s, reg, t)) return w;
  if (!is_memory(s.operands[mem].level)) return fail(name(s, mem), " is not in memory (GL, L2 or L1)");
  // One gap-free range: contiguous, or one row along the innermost dimension (stride 1 in any buffer).
  const TensorSpec& m = s.operands[mem];
  if (!m.contiguous && !is_unit_stride_run(m.shape, m.layout)) return fail(name(s, mem), " is not contiguous");
  if (!s.operands[mem].layout.same_placement(s.operands[reg].layout, s.operands[mem].shape)) {
    return fail(name(s, mem), " in layout ", layout_text(s.operands[mem].layout), " orders elements unlike ",
                name(s, reg), " in ", layout_text(s.operands[reg].layout));
  }
  return std::nullopt;
}

/// The matmul kernels take rank-2 operands, or rank-3 ones of a single batch (a batch tile of 1 is a matmul).
Why one_matmul(const Spec& s, std::string_view kernel) {
  const TensorSpec& a = s.operands[0];
  if (a.rank() == 2) return std::nullopt;
  if (a.rank() == 3 && a.shape[0] == 1) return std::nullopt;
  return fail(kernel, " needs rank-2 operands or a batch of 1, got ", name(s, 0));
}

Why bcast_fma_rules(const Spec& s, const Target& t) {
  const TensorSpec& a = s.operands[0];
  const TensorSpec& b = s.operands[1];
  const TensorSpec& c = s.operands[2];
  if (Why w = one_matmul(s, "bcast_fma")) return w;
  const std::size_t r = a.rank();
  const std::int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
  const std::int64_t width = t.vector_elements(Dtype::f32);
  if (k != 1) return fail("the reduction extent is ", k, ", not 1");
  if (!is_memory(a.level)) return fail(name(s, 0), " is not in memory (GL, L2 or L1)");
  if (c.level != Level::VRF) return fail(name(s, 2), " is not in VRF");
  // C (and B in registers) rows of registers, the last of each row partial when n is not a multiple of the width.
  if (!register_rows(c)) {
    return fail(name(s, 2), " is not rows of registers (", layout_text(c.layout), ", n = ", n, ", vector size ", width,
                ")");
  }
  if (b.level == Level::VRF) {
    if (!register_rows(b)) return fail(name(s, 1), " is not rows of registers (", layout_text(b.layout), ")");
  } else if (!is_memory(b.level)) {
    return fail(name(s, 1), " is neither in VRF nor in memory");
  } else if (n % width == 0 ? !register_rows_dense(b, static_cast<std::uint32_t>(width))
                            : !register_panels_dense(b, static_cast<std::uint32_t>(width))) {
    return fail(name(s, 1), " in memory is not registers of dense rows (", layout_text(b.layout),
                b.contiguous ? "" : ", strided", ")");
  }
  const std::int64_t row = (n + width - 1) / width;
  const std::int64_t registers = m * row + row + 1;
  if (registers > t.vector_registers) {
    return fail("needs ", registers, " vector registers (", m * row, " for C, ", row, " for B, 1 broadcast), the target has ",
                t.vector_registers);
  }
  return std::nullopt;
}

/// The elements of operand i are one dense run in memory, in index order.
Why dense_run(const Spec& s, std::size_t i) {
  const TensorSpec& t = s.operands[i];
  if (!is_memory(t.level)) return fail(name(s, i), " is not in memory (GL, L2 or L1)");
  if (t.runs() != 1 || !t.layout.same_placement(Layout::row_major(), t.shape)) {
    return fail(name(s, i), " is not one dense run (", layout_text(t.layout), t.contiguous ? "" : ", strided", ")");
  }
  return std::nullopt;
}

/// dot_fma: every lhs row and rhs column a dense run of at least a register (a partial last register loads masked),
/// the output one RF element or memory, and a register for each dot and each run loaded per step.
Why dot_fma_rules(const Spec& s, const Target& t) {
  const TensorSpec& a = s.operands[0];
  const TensorSpec& b = s.operands[1];
  const TensorSpec& c = s.operands[2];
  if (Why w = one_matmul(s, "dot_fma")) return w;
  const std::size_t r = a.rank();
  const std::int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
  const std::int64_t width = t.vector_elements(Dtype::f32);
  if (k < width) return fail("k = ", k, " is less than a register (", width, ")");
  if (m == 1) {
    if (Why w = dense_run(s, 0)) return w;
  } else if (!is_memory(a.level) || !a.layout.same_placement(Layout::row_major(), a.shape)) {
    return fail("the rows of ", name(s, 0), " are not dense runs in memory (", layout_text(a.layout), ")");
  }
  if (n == 1) {
    if (Why w = dense_run(s, 1)) return w;
  } else if (!is_memory(b.level) || !b.layout.same_placement(Layout::col_major(), b.shape)) {
    return fail("the columns of ", name(s, 1), " are not dense runs in memory (", layout_text(b.layout), ")");
  }
  if (m * n == 1 ? c.level != Level::RF && !is_memory(c.level) : !is_memory(c.level)) {
    return fail("the output ", name(s, 2), " is ", m * n == 1 ? "neither in RF nor in memory" : "not in memory");
  }
  if (dot_fma_registers(m, n) > t.vector_registers) {
    return fail("needs ", dot_fma_registers(m, n), " vector registers (", m * n, " dots, ", m + n,
                " runs loaded per step), the target has ", t.vector_registers);
  }
  return std::nullopt;
}

/// vec_sum_run: the reduced axis is the input's innermost and the input one dense run of whole registers.
Why sum_run_rules(const Spec& s, const Target& t) {
  const TensorSpec& in = s.input(0);
  const std::size_t axis = std::get<ReduceSum>(s.op).axis;
  if (axis + 1 != in.rank()) return fail("the reduced axis ", axis, " is not the innermost of ", name(s, 0));
  const std::int64_t width = t.vector_elements(Dtype::f32);
  if (in.elements() != in.shape[axis]) return fail(name(s, 0), " is not one row (", in.elements(), " elements)");
  if (in.elements() % width != 0) return fail("k = ", in.elements(), " is not a multiple of the vector size ", width);
  if (Why w = dense_run(s, 0)) return w;
  if (s.output().level != Level::RF) return fail("the output ", name(s, 1), " is not in RF");
  return std::nullopt;
}

/// vec_sum_runs: the reduced axis is the input's innermost, the input as many rows as a register has lanes, or
/// fewer into a register panel's partial register (each row one dense run, at any stride; a row's last partial
/// register is loaded masked), the output those rows' sums in one register.
Why sum_runs_rules(const Spec& s, const Target& t) {
  const TensorSpec& in = s.input(0);
  const TensorSpec& out = s.output();
  const std::size_t axis = std::get<ReduceSum>(s.op).axis;
  if (axis + 1 != in.rank()) return fail("the reduced axis ", axis, " is not the innermost of ", name(s, 0));
  if (Why w = one_vector(s, s.operands.size() - 1, t)) return w;
  if (!out.layout.same_placement(Layout::row_major(), out.shape)) return fail(name(s, 1), " is not row-major");
  if (!is_memory(in.level)) return fail(name(s, 0), " is not in memory (GL, L2 or L1)");
  Shape row(in.rank(), 1);
  row[axis] = in.shape[axis];
  if (!is_unit_stride_run(row, in.layout)) {
    return fail("the rows of ", name(s, 0), " are not dense runs (", layout_text(in.layout), ")");
  }
  return std::nullopt;
}

/// vec_sum_rows: an outer axis reduced into row-major output registers, the input's slice at each step along the
/// axis whole registers of dense rows in memory; or into register panels (each row's last register partial, its
/// input loaded masked).
Why sum_rows_rules(const Spec& s, const Target& t) {
  const TensorSpec& in = s.input(0);
  const TensorSpec& out = s.output();
  const std::size_t axis = std::get<ReduceSum>(s.op).axis;
  if (axis + 1 == in.rank()) return fail("the reduced axis ", axis, " is the innermost of ", name(s, 0));
  if (out.level != Level::VRF) return fail("the output ", name(s, 1), " is not in VRF");
  const bool panels = in_register_panels(out);
  if (!panels && !out.layout.same_placement(Layout::row_major(), out.shape)) {
    return fail(name(s, 1), " is neither row-major nor register panels");
  }
  if (!is_memory(in.level)) return fail(name(s, 0), " is not in memory (GL, L2 or L1)");
  const auto width = static_cast<std::uint32_t>(t.vector_elements(Dtype::f32));
  if (panels) {
    // Rows of registers, each row's last one partial: the input's rows at each step loaded alike, masked.
    if (out.vector_size != width) return fail(name(s, 1), " has vector size ", out.vector_size, ", not ", width);
    if (!register_panels_dense(reduced_slice(in, axis), width)) {
      return fail(name(s, 0), " is not dense rows at each step along axis ", axis, " (", layout_text(in.layout),
                  in.contiguous ? "" : ", strided", ")");
    }
    return std::nullopt;
  }
  if (!register_box(out.shape, width)) return fail(name(s, 1), " does not split into whole registers of ", width);
  if (!register_rows_dense(reduced_slice(in, axis), width)) {
    return fail(name(s, 0), " is not whole registers of dense rows at each step along axis ", axis, " (",
                layout_text(in.layout), in.contiguous ? "" : ", strided", ")");
  }
  return std::nullopt;
}

/// The op the kernel implements must be `want`; its text for reasons.
template <class Want>
Why op_is(const Spec& s, std::string_view want) {
  if (!std::holds_alternative<Want>(s.op)) return fail("implements ", want, ", not ", op_word(s.op));
  return std::nullopt;
}

Why accumulating(const Spec& s) {
  if (!accumulates(s.op)) return fail(op_word(s.op), " does not accumulate into its output");
  return std::nullopt;
}

Why check(KernelKind k, const Spec& s, const Target& t) {
  switch (k) {
    case KernelKind::scalar_mult_add: {
      if (Why w = op_is<Matmul>(s, "matmul[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      return scalar_rules(s);
    }
    case KernelKind::scalar_copy: {
      if (Why w = op_is<Move>(s, "move")) return w;
      if (Why w = scalar_rules(s, false)) return w;
      if (s.operands[0].level != Level::RF && s.operands[1].level != Level::RF) {
        return fail("neither ", name(s, 0), " nor ", name(s, 1), " is in RF");
      }
      return std::nullopt;
    }
    case KernelKind::scalar_zero:
      if (Why w = op_is<Zero>(s, "zero")) return w;
      return scalar_rules(s);
    case KernelKind::scalar_unary:
      if (Why w = op_is<Unary>(s, "a unary op")) return w;
      return scalar_rules(s);
    case KernelKind::scalar_binary:
      if (Why w = op_is<Binary>(s, "a binary op")) return w;
      return scalar_rules(s);
    case KernelKind::scalar_reduce_add:
      if (Why w = op_is<ReduceSum>(s, "reducesum[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      return scalar_rules(s);
    case KernelKind::direct_conv: {
      if (Why w = op_is<Conv>(s, "conv[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      if (const Conv& c = std::get<Conv>(s.op); c.padded()) {
        return fail("the conv is padded (", c.pad[0], "x", c.pad[1], "); direct_conv reads no padding");
      }
      for (std::size_t i = 0; i < s.operands.size(); ++i) {
        if (s.operands[i].level == Level::VRF) return fail(name(s, i), " is in VRF; direct_conv does not read VRF");
      }
      if (s.output().elements() != 1) return fail("the output ", name(s, 2), " has ", s.output().elements(), " elements, not 1");
      if (s.output().level != Level::RF) return fail("the output ", name(s, 2), " is not in RF");
      return std::nullopt;
    }
    // Vector kernels: the target's vector rules first.
    case KernelKind::vec_load:
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Move>(s, "move")) return w;
      return vector_move(s, t, 0, 1);
    case KernelKind::vec_store:
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Move>(s, "move")) return w;
      return vector_move(s, t, 1, 0);
    case KernelKind::vec_zero:
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Zero>(s, "zero")) return w;
      return one_vector(s, 0, t);
    case KernelKind::vec_unary: {
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Unary>(s, "a unary op")) return w;
      for (std::size_t i = 0; i < s.operands.size(); ++i) {
        if (Why v = one_vector(s, i, t)) return v;
      }
      return equal_shapes(s);
    }
    case KernelKind::vec_binary: {
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Binary>(s, "a binary op")) return w;
      if (Why v = one_vector(s, 2, t)) return v;
      for (std::size_t i = 0; i < 2; ++i) {
        if (broadcast_element(s.operands[i])) continue;
        if (Why v = one_vector(s, i, t)) return fail(*v, " (nor one element in memory to broadcast)");
        if (s.operands[i].shape != s.output().shape) {
          return fail(name(s, i), " and the output ", shape_text(s.output().shape), " differ in shape");
        }
      }
      return std::nullopt;
    }
    case KernelKind::bcast_fma:
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Matmul>(s, "matmul[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      return bcast_fma_rules(s, t);
    case KernelKind::dot_fma:
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<Matmul>(s, "matmul[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      return dot_fma_rules(s, t);
    case KernelKind::vec_sum_run:
    case KernelKind::vec_sum_rows:
    case KernelKind::vec_sum_runs:
      if (Why w = vector_rules(s, t)) return w;
      if (Why w = op_is<ReduceSum>(s, "reducesum[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      if (k == KernelKind::vec_sum_run) return sum_run_rules(s, t);
      return k == KernelKind::vec_sum_rows ? sum_rows_rules(s, t) : sum_runs_rules(s, t);
  }
  return fail("unknown kernel ", static_cast<int>(k));
}

}  // namespace

std::optional<KernelKind> parse_kernel(std::string_view name) {
  for (KernelKind k : kAllKernels) {
    if (kernel_name(k) == name) return k;
  }
  return std::nullopt;
}

std::optional<std::string> kernel_illegal(KernelKind k, const Spec& spec, const Target& target) {
  if (Why w = all_f32(spec)) return w;
  return check(k, spec, target);
}

std::vector<KernelKind> kernels_for(const Spec& spec, const Target& target) {
  const QuietReasons quiet;  // only which kernels apply, not why the others do not
  std::vector<KernelKind> out;
  for (KernelKind k : kAllKernels) {
    if (!kernel_illegal(k, spec, target)) out.push_back(k);
  }
  return out;
}

}  // namespace kriek
