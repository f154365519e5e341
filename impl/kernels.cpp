// Kernel names and legality: which Specs each leaf kernel of a target implements, with a reason naming the
// offending operand and value whenever a rule fails (see impl/kernel.h for the kernels).
#include <array>
#include <sstream>

#include "impl/kernel.h"

#include "impl/tiling.h"
#include "spec/overloaded.h"

namespace kriek {
namespace {

using Why = std::optional<std::string>;

constexpr std::array<std::string_view, kKernelKindCount> kNames = {
    "scalar_mult_add", "scalar_copy", "scalar_zero", "scalar_unary", "scalar_binary", "scalar_reduce_add",
    "vec_load",        "vec_store",   "vec_zero",    "vec_unary",    "vec_binary",    "bcast_fma",
    "direct_conv",     "dot_fma"};

template <class... Args>
Why fail(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

bool is_memory(Level l) { return l == Level::GL || l == Level::L2 || l == Level::L1; }

/// The name of operand i in reasons: "operand 1 (16x1 L1)".
std::string name(const Spec& s, std::size_t i) {
  return "operand " + std::to_string(i) + " (" + shape_text(s.operands[i].shape) + " " +
         std::string(level_name(s.operands[i].level)) + ")";
}

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

/// One whole vector: level VRF and exactly one register's elements.
Why one_vector(const Spec& s, std::size_t i, const Target& t) {
  const TensorSpec& o = s.operands[i];
  if (o.level != Level::VRF) return fail(name(s, i), " is not in VRF");
  if (o.elements() != t.vector_elements(Dtype::f32)) {
    return fail(name(s, i), " has ", o.elements(), " elements, not one vector of ", t.vector_elements(Dtype::f32));
  }
  return std::nullopt;
}

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
  if (!s.operands[mem].contiguous) return fail(name(s, mem), " is not contiguous");
  if (!s.operands[mem].layout.same_placement(s.operands[reg].layout, s.operands[mem].shape)) {
    return fail(name(s, mem), " in layout ", layout_text(s.operands[mem].layout), " orders elements unlike ",
                name(s, reg), " in ", layout_text(s.operands[reg].layout));
  }
  return std::nullopt;
}

Why bcast_fma_rules(const Spec& s, const Target& t) {
  const TensorSpec& a = s.operands[0];
  const TensorSpec& b = s.operands[1];
  const TensorSpec& c = s.operands[2];
  if (a.rank() != 2) return fail("bcast_fma needs rank-2 operands, got ", name(s, 0));
  const std::int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::int64_t width = t.vector_elements(Dtype::f32);
  if (k != 1) return fail("the reduction extent is ", k, ", not 1");
  if (!is_memory(a.level)) return fail(name(s, 0), " is not in memory (GL, L2 or L1)");
  if (c.level != Level::VRF) return fail(name(s, 2), " is not in VRF");
  if (b.level == Level::VRF) {
    if (!b.layout.same_placement(Layout::row_major(), b.shape)) return fail(name(s, 1), " is not row-major");
  } else if (!is_memory(b.level)) {
    return fail(name(s, 1), " is neither in VRF nor in memory");
  } else if (!register_rows_dense(b, static_cast<std::uint32_t>(width))) {
    return fail(name(s, 1), " in memory is not whole registers of dense rows (", layout_text(b.layout),
                b.contiguous ? "" : ", strided", ")");
  }
  if (!c.layout.same_placement(Layout::row_major(), c.shape)) return fail(name(s, 2), " is not row-major");
  if (n % width != 0) return fail("n = ", n, " is not a multiple of the vector size ", width);
  const std::int64_t registers = m * n / width + n / width + 1;
  if (registers > t.vector_registers) {
    return fail("needs ", registers, " vector registers (", m * n / width, " for C, ", n / width,
                " for B, 1 broadcast), the target has ", t.vector_registers);
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

Why dot_fma_rules(const Spec& s, const Target& t) {
  const TensorSpec& a = s.operands[0];
  const TensorSpec& c = s.operands[2];
  if (a.rank() != 2) return fail("dot_fma needs rank-2 operands, got ", name(s, 0));
  if (a.shape[0] != 1 || s.operands[1].shape[1] != 1) {
    return fail("dot_fma computes one element, not ", a.shape[0], "x", s.operands[1].shape[1]);
  }
  const std::int64_t width = t.vector_elements(Dtype::f32);
  if (a.shape[1] % width != 0) return fail("k = ", a.shape[1], " is not a multiple of the vector size ", width);
  if (Why w = dense_run(s, 0)) return w;
  if (Why w = dense_run(s, 1)) return w;
  if (c.level != Level::RF) return fail("the output ", name(s, 2), " is not in RF");
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
    default: break;
  }
  if (Why w = vector_rules(s, t)) return w;
  switch (k) {
    case KernelKind::vec_load:
      if (Why w = op_is<Move>(s, "move")) return w;
      return vector_move(s, t, 0, 1);
    case KernelKind::vec_store:
      if (Why w = op_is<Move>(s, "move")) return w;
      return vector_move(s, t, 1, 0);
    case KernelKind::vec_zero:
      if (Why w = op_is<Zero>(s, "zero")) return w;
      return one_vector(s, 0, t);
    case KernelKind::vec_unary:
    case KernelKind::vec_binary: {
      Why w = k == KernelKind::vec_unary ? op_is<Unary>(s, "a unary op") : op_is<Binary>(s, "a binary op");
      if (w) return w;
      for (std::size_t i = 0; i < s.operands.size(); ++i) {
        if (Why v = one_vector(s, i, t)) return v;
      }
      return equal_shapes(s);
    }
    case KernelKind::bcast_fma:
      if (Why w = op_is<Matmul>(s, "matmul[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      return bcast_fma_rules(s, t);
    case KernelKind::dot_fma:
      if (Why w = op_is<Matmul>(s, "matmul[acc]")) return w;
      if (Why w = accumulating(s)) return w;
      return dot_fma_rules(s, t);
    default: break;
  }
  return fail("unknown kernel ", static_cast<int>(k));
}

}  // namespace

std::string_view kernel_name(KernelKind k) {
  const auto i = static_cast<std::size_t>(k);
  return i < kNames.size() ? kNames[i] : "?";
}

std::optional<KernelKind> parse_kernel(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<KernelKind>(i);
  }
  return std::nullopt;
}

std::optional<std::string> kernel_illegal(KernelKind k, const Spec& spec, const Target& target) {
  if (Why w = all_f32(spec)) return w;
  return check(k, spec, target);
}

std::int64_t dot_chains(std::int64_t vectors) {
  for (std::int64_t c : {8, 4, 2}) {
    if (vectors % c == 0) return c;
  }
  return 1;
}

std::vector<KernelKind> kernels_for(const Spec& spec, const Target& target) {
  std::vector<KernelKind> out;
  for (int i = 0; i < kKernelKindCount; ++i) {
    const auto k = static_cast<KernelKind>(i);
    if (!kernel_illegal(k, spec, target)) out.push_back(k);
  }
  return out;
}

}  // namespace kriek
