// The op kinds a Spec can name. Each is a small regular struct; `Op` is the closed set. Operand order of every
// kind (inputs, then the output) is documented on its struct and is the order of Spec::operands.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>

#include "spec/enum_list.h"

namespace kriek {

/// C[m,n] (+)= sum_k A[m,k] * B[k,n]; operands A (M×K), B (K×N), C (M×N). Batched when all three have a
/// leading batch dimension: A (b×M×K), B (b×K×N), C (b×M×N). When `accumulate`, C is read as well as written.
struct Matmul {
  bool accumulate = false;
  friend bool operator==(const Matmul&, const Matmul&) = default;
  friend std::size_t hash_value(const Matmul& m) { return boost::hash_value(m.accumulate); }
  template <class Archive> void serialize(Archive& ar) { ar(accumulate); }
};

/// 2-D convolution (cross-correlation) with strides and zero padding, operands image, filters, output, in one of
/// three forms chosen by the image's rank:
///   rank 2 (the Kriek report's Figure 2): image H×W, filters FH×FW×F, output OH×OW×F;
///   rank 3: image H×W×C, filters FH×FW×C×F, output OH×OW×F;
///   rank 4: image N×H×W×C, filters FH×FW×C×F, output N×OH×OW×F;
/// OH = (H + 2·pad[0] - FH) / stride[0] + 1 (rounded down), OW likewise with pad[1], stride[1].
/// out[n,y,x,f] (+)= sum_{c,i,j} image[n, y·sy + i - py, x·sx + j - px, c] * filters[i,j,c,f], where image
/// elements outside H×W read as 0. Index 0 of `stride` and `pad` is the rows, 1 the columns.
struct Conv {
  bool accumulate = false;
  std::array<std::uint32_t, 2> stride{1, 1};
  std::array<std::uint32_t, 2> pad{0, 0};
  /// True when some padding is nonzero.
  bool padded() const { return pad[0] != 0 || pad[1] != 0; }
  friend bool operator==(const Conv&, const Conv&) = default;
  friend std::size_t hash_value(const Conv& c) {
    std::size_t seed = boost::hash_value(c.accumulate) + 0x51;
    boost::hash_combine(seed, boost::hash_range(c.stride.begin(), c.stride.end()));
    boost::hash_combine(seed, boost::hash_range(c.pad.begin(), c.pad.end()));
    return seed;
  }
  template <class Archive> void serialize(Archive& ar) { ar(accumulate, stride, pad); }
};

/// out = in: a copy between levels and/or layouts. Operands in, out (same shape and dtype).
struct Move {
  friend bool operator==(const Move&, const Move&) = default;
  friend std::size_t hash_value(const Move&) { return 0x4d6f7665; }
  template <class Archive> void serialize(Archive&) {}
};

/// out = 0. One operand, out.
struct Zero {
  friend bool operator==(const Zero&, const Zero&) = default;
  friend std::size_t hash_value(const Zero&) { return 0x5a65726f; }
  template <class Archive> void serialize(Archive&) {}
};

enum class UnaryOp : std::uint8_t { relu };
/// The op's spec-text word (empty for a byte that is no UnaryOp).
constexpr std::string_view unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::relu: return "relu";
  }
  return {};
}
inline constexpr std::array kAllUnaryOps = {UnaryOp::relu};
static_assert(lists_every_value(kAllUnaryOps, unary_op_name), "kAllUnaryOps must list every UnaryOp in order");

/// out = f(in) elementwise. Operands in, out (same shape).
struct Unary {
  UnaryOp op = UnaryOp::relu;
  friend bool operator==(const Unary&, const Unary&) = default;
  friend std::size_t hash_value(const Unary& u) { return 0x556e + static_cast<std::size_t>(u.op); }
  template <class Archive> void serialize(Archive& ar) { ar(op); }
};

enum class BinaryOp : std::uint8_t { add, mul, sub, max };
/// The op's spec-text word (empty for a byte that is no BinaryOp).
constexpr std::string_view binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "add";
    case BinaryOp::mul: return "mul";
    case BinaryOp::sub: return "sub";
    case BinaryOp::max: return "max";
  }
  return {};
}
inline constexpr std::array kAllBinaryOps = {BinaryOp::add, BinaryOp::mul, BinaryOp::sub, BinaryOp::max};
static_assert(lists_every_value(kAllBinaryOps, binary_op_name), "kAllBinaryOps must list every BinaryOp in order");

/// out = a op b elementwise with broadcasting: a and b have the output's rank, each extent equal to the
/// output's or 1 (then read at index 0 along that dimension). Operands a, b, out.
struct Binary {
  BinaryOp op = BinaryOp::add;
  friend bool operator==(const Binary&, const Binary&) = default;
  friend std::size_t hash_value(const Binary& b) { return 0x4269 + static_cast<std::size_t>(b.op); }
  template <class Archive> void serialize(Archive& ar) { ar(op); }
};

/// out (+)= sum of in over dimension `axis`; the output is the input's shape without that dimension.
/// Operands in, out.
struct ReduceSum {
  std::uint8_t axis = 0;
  bool accumulate = false;
  friend bool operator==(const ReduceSum&, const ReduceSum&) = default;
  friend std::size_t hash_value(const ReduceSum& r) {
    std::size_t seed = 0x5265;
    boost::hash_combine(seed, r.axis);
    boost::hash_combine(seed, r.accumulate);
    return seed;
  }
  template <class Archive> void serialize(Archive& ar) { ar(axis, accumulate); }
};

/// Every op kind but Compose.
using PrimitiveOp = std::variant<Matmul, Conv, Move, Zero, Unary, Binary, ReduceSum>;

/// True for the ops computed element by element (Unary, Binary): a stage of an epilogue.
inline bool is_elementwise(const PrimitiveOp& op) {
  return std::holds_alternative<Unary>(op) || std::holds_alternative<Binary>(op);
}

/// A pipeline of primitive ops, in execution order: the output of stage i is input 0 of stage i+1.
/// Operands: all inputs of stage 0, then the inputs of each later stage but its first, then the final output.
/// Intermediate results have the output's dtype; their shapes follow from the stages' shape rules.
struct Compose {
  std::vector<PrimitiveOp> stages;
  friend bool operator==(const Compose&, const Compose&) = default;
  friend std::size_t hash_value(const Compose& c) {
    std::size_t seed = 0x436f;
    for (const auto& s : c.stages) boost::hash_combine(seed, s);
    return seed;
  }
  template <class Archive> void serialize(Archive& ar) { ar(stages); }
};

using Op = std::variant<Matmul, Conv, Move, Zero, Unary, Binary, ReduceSum, Compose>;

/// True for an op computed element by element in every stage: Unary, Binary, or a Compose of them.
inline bool elementwise_op(const Op& op) {
  if (const auto* c = std::get_if<Compose>(&op)) {
    for (const PrimitiveOp& stage : c->stages) {
      if (!is_elementwise(stage)) return false;
    }
    return true;
  }
  return std::holds_alternative<Unary>(op) || std::holds_alternative<Binary>(op);
}

/// The op as a PrimitiveOp; nullopt for Compose.
std::optional<PrimitiveOp> primitive(const Op& op);
Op to_op(const PrimitiveOp& op);

/// Inputs the primitive op reads (not counting the output, even when accumulating).
std::size_t input_count(const PrimitiveOp& op);
/// Inputs of any op; for Compose, the external inputs.
std::size_t input_count(const Op& op);
/// True when the op reads its output (Matmul, Conv, ReduceSum with accumulate).
bool accumulates(const PrimitiveOp& op);
bool accumulates(const Op& op);
/// The op's spec-text word, e.g. "matmul", "relu", "reducesum"; modifiers are not included.
std::string_view op_word(const PrimitiveOp& op);
std::string_view op_word(const Op& op);

}  // namespace kriek
