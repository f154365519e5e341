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

std::optional<Dtype> parse_dtype(std::string_view text) {
  for (Dtype d : kAllDtypes) {
    if (dtype_name(d) == text) return d;
  }
  return std::nullopt;
}

std::optional<Level> parse_level(std::string_view text) {
  for (Level l : kAllLevels) {
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
  using P = std::optional<PrimitiveOp>;
  return std::visit(overloaded{[](const Matmul& o) -> P { return o; }, [](const Conv& o) -> P { return o; },
                               [](const Move& o) -> P { return o; }, [](const Zero& o) -> P { return o; },
                               [](const Unary& o) -> P { return o; }, [](const Binary& o) -> P { return o; },
                               [](const ReduceSum& o) -> P { return o; }, [](const Compose&) -> P { return std::nullopt; }},
                    op);
}

Op to_op(const PrimitiveOp& op) {
  return std::visit(overloaded{[](const Matmul& o) -> Op { return o; }, [](const Conv& o) -> Op { return o; },
                               [](const Move& o) -> Op { return o; }, [](const Zero& o) -> Op { return o; },
                               [](const Unary& o) -> Op { return o; }, [](const Binary& o) -> Op { return o; },
                               [](const ReduceSum& o) -> Op { return o; }},
                    op);
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
                               [](const Move&) { return false; }, [](const Zero&) { return false; },
                               [](const Unary&) { return false; }, [](const Binary&) { return false; }},
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
