// Text names of dtypes, levels, ISAs and op kinds, and small Shape helpers.
#include <ostream>
#include <string>

#include "spec/dtype.h"
#include "spec/level.h"
#include "spec/overloaded.h"
#include "spec/ops.h"
#include "spec/shape.h"
#include "spec/target.h"

namespace kriek {

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::f32: return "f32";
    case Dtype::f16: return "f16";
    case Dtype::bf16: return "bf16";
    case Dtype::i8: return "i8";
    case Dtype::i32: return "i32";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view text) {
  for (Dtype d : {Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::i32}) {
    if (dtype_name(d) == text) return d;
  }
  return std::nullopt;
}

std::string_view level_name(Level l) {
  switch (l) {
    case Level::GL: return "GL";
    case Level::L2: return "L2";
    case Level::L1: return "L1";
    case Level::VRF: return "VRF";
    case Level::RF: return "RF";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view text) {
  for (Level l : {Level::GL, Level::L2, Level::L1, Level::VRF, Level::RF}) {
    if (level_name(l) == text) return l;
  }
  return std::nullopt;
}

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
  }
  return "?";
}

std::int64_t volume(const Shape& shape) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

void print_shape(std::ostream& out, const Shape& shape) {
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? "x" : "") << shape[i];
}

std::string shape_text(const Shape& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::string_view unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::relu: return "relu";
  }
  return "?";
}

std::string_view binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "add";
    case BinaryOp::mul: return "mul";
    case BinaryOp::sub: return "sub";
    case BinaryOp::max: return "max";
  }
  return "?";
}

std::size_t input_count(const PrimitiveOp& op) {
  return std::visit(overloaded{[](const Matmul&) -> std::size_t { return 2; },
                               [](const Conv&) -> std::size_t { return 2; },
                               [](const Move&) -> std::size_t { return 1; },
                               [](const Zero&) -> std::size_t { return 0; },
                               [](const Unary&) -> std::size_t { return 1; },
                               [](const Binary&) -> std::size_t { return 2; },
                               [](const ReduceSum&) -> std::size_t { return 1; }},
                    op);
}

std::optional<PrimitiveOp> primitive(const Op& op) {
  return std::visit(overloaded{[](const Compose&) -> std::optional<PrimitiveOp> { return std::nullopt; },
                               [](const auto& o) -> std::optional<PrimitiveOp> { return PrimitiveOp(o); }},
                    op);
}

Op to_op(const PrimitiveOp& op) {
  return std::visit([](const auto& o) { return Op(o); }, op);
}

std::size_t input_count(const Op& op) {
  if (const auto* c = std::get_if<Compose>(&op)) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < c->stages.size(); ++i) n += input_count(c->stages[i]) - (i > 0);
    return n;
  }
  return input_count(*primitive(op));
}

bool accumulates(const PrimitiveOp& op) {
  return std::visit(overloaded{[](const Matmul& m) { return m.accumulate; },
                               [](const Conv& c) { return c.accumulate; },
                               [](const ReduceSum& r) { return r.accumulate; },
                               [](const auto&) { return false; }},
                    op);
}

bool accumulates(const Op& op) {
  if (const auto* c = std::get_if<Compose>(&op)) return !c->stages.empty() && accumulates(c->stages.back());
  return accumulates(*primitive(op));
}

std::string_view op_word(const PrimitiveOp& op) {
  return std::visit(overloaded{[](const Matmul&) -> std::string_view { return "matmul"; },
                               [](const Conv&) -> std::string_view { return "conv"; },
                               [](const Move&) -> std::string_view { return "move"; },
                               [](const Zero&) -> std::string_view { return "zero"; },
                               [](const Unary& u) { return unary_op_name(u.op); },
                               [](const Binary& b) { return binary_op_name(b.op); },
                               [](const ReduceSum&) -> std::string_view { return "reducesum"; }},
                    op);
}

std::string_view op_word(const Op& op) {
  if (std::holds_alternative<Compose>(op)) return "compose";
  return op_word(*primitive(op));
}

}  // namespace kriek
