// Spec: a subproblem to implement: an op kind, its operands' TensorSpecs (inputs, then the output) and whether the
// implementation must be serial. Specs are plain regular values: the DP memoizes on them.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <span>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <boost/container_hash/hash.hpp>
#include <cereal/types/vector.hpp>

#include "spec/ops.h"
#include "spec/tensor_spec.h"

namespace kriek {

struct Target;

/// A value per operand of a Spec, held inline for the usual three or four: the DP computes such lists for millions
/// of actions, and a heap block each was a large part of its time in malloc and free.
template <class T>
using PerOperand = boost::container::small_vector<T, 4>;
/// Its elements as a span (its iterators are not raw pointers, so std::span does not take it as a range).
template <class T>
std::span<const T> span_of(const PerOperand<T>& v) {
  return {v.data(), v.size()};
}

struct Spec {
  Op op;
  /// The inputs in the op's documented order, then the output.
  std::vector<TensorSpec> operands;
  /// No parallel loop may implement this Spec (the body of a parallel loop is serial).
  bool serial_only = false;

  std::size_t input_count() const { return operands.size() - 1; }
  std::span<const TensorSpec> inputs() const { return {operands.data(), operands.size() - 1}; }
  const TensorSpec& output() const { return operands.back(); }
  const TensorSpec& input(std::size_t i) const { return operands[i]; }

  friend bool operator==(const Spec&, const Spec&) = default;
  friend std::size_t hash_value(const Spec& s) {
    std::size_t seed = boost::hash_value(s.op);
    boost::hash_combine(seed, boost::hash_range(s.operands.begin(), s.operands.end()));
    boost::hash_combine(seed, s.serial_only);
    return seed;
  }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(op, operands, serial_only);
  }
};

/// Hash functor for unordered containers keyed by Spec.
struct SpecHash {
  std::size_t operator()(const Spec& s) const { return hash_value(s); }
};

/// The output shape the primitive op produces from these input shapes, or an empty optional-like failure via
/// UserError naming the disagreeing extents.
Shape infer_output_shape(const PrimitiveOp& op, std::span<const Shape> inputs);
/// The same for any op; for Compose, runs the stages in order.
Shape infer_output_shape(const Op& op, std::span<const Shape> inputs);
/// Shapes of a Compose's intermediate results, stage 0's output first (one per stage but the last). Held inline:
/// the search works them out for every tile and cut it tries of a pipeline.
PerOperand<Shape> compose_intermediate_shapes(const Compose& c, std::span<const Shape> inputs);

/// Checks the Spec against its op's shape rules and the target (levels exist, vector sizes fit, dtypes
/// supported). Throws UserError naming the offending values.
void validate(const Spec& spec, const Target& target);

/// Floating-point operations the Spec performs (2 per multiply-accumulate), for GFLOP/s reports; with `lanes` > 1
/// each matmul's and conv's outputs counted in whole registers of that many lanes along their innermost dimension
/// (the FMAs' lanes, used or not): the work a narrow output costs in vector instructions.
double flop_count(const Spec& spec, std::int64_t lanes = 1);

/// Prints the long spec-text form (parseable by parse_spec).
std::ostream& operator<<(std::ostream& out, const Spec& spec);

}  // namespace kriek
