// Helpers for the sched tests: short constructors of TensorSpecs and Specs of every op kind, the outcome of an
// action (Impl or reason), the check that an Impl interpreted on random inputs equals reference(), and golden
// files under test/sched/golden/ (UPDATE_GOLDEN=1 rewrites them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sched/action.h"
#include "support/random_spec.h"
#include "support/tensors.h"

namespace kriek::sched_test {

using kriek::testing::avx512;
using kriek::testing::ts;
const Target& scalar_target();

Spec matmul(Shape a, Shape b, bool accumulate = false);
/// Conv of `img` with `filters`, the output shape inferred; all in GL row-major.
Spec conv(Shape img, Shape filters, bool accumulate = false);
Spec move_spec(TensorSpec in, TensorSpec out);
Spec zero(Shape out);
Spec relu(Shape shape);
Spec binary(BinaryOp op, Shape a, Shape b);
Spec reducesum(Shape in, std::uint8_t axis, bool accumulate = false);
/// A Compose of `stages` over GL row-major `inputs`, the output shape inferred.
Spec compose(std::vector<PrimitiveOp> stages, std::vector<Shape> inputs);

/// The Impl the action makes; fails the test with the reason when it does not apply.
ImplPtr applied(const Action& action, const Spec& spec, const Target& target = avx512());
/// The reason the action does not apply; fails the test when it applies.
std::string reason(const Action& action, const Spec& spec, const Target& target = avx512());

/// The actions of kind A among `actions`, in order.
template <class A>
std::vector<A> only(const std::vector<Action>& actions) {
  std::vector<A> out;
  for (const auto& a : actions) {
    if (const auto* x = std::get_if<A>(&a)) out.push_back(*x);
  }
  return out;
}

inline bool contains(const std::vector<Action>& actions, const Action& a) {
  return std::find(actions.begin(), actions.end(), a) != actions.end();
}

/// True when `impl`, interpreted on random operands from a seed drawn from `rng`, computes the reference
/// (test/support/interpret_check.h); the seed and the error are reported when not.
bool interprets_reference(const ImplPtr& impl, std::mt19937_64& rng);

/// Requires that every enumerated action of `spec` applies; returns the Specs of the holes they make.
std::vector<Spec> check_all_apply(const Spec& spec, const Target& target);

using kriek::testing::test_seed;

inline constexpr int kRandomKinds = 8;
static_assert(kRandomKinds == std::variant_size_v<Op>, "the random Specs must draw every op kind");
/// A random valid Spec (random_specs.cpp) of kind `kind` (0 matmul, 1 conv, 2 move, 3 zero, 4 relu, 5 binary,
/// 6 reducesum, 7 compose): batched matmuls, the three conv forms, broadcasting binaries, Composes of 2-3 stages;
/// operands at random memory levels and layouts, sometimes strided or unaligned; extents 1 to 12.
Spec random_spec(std::mt19937_64& rng, int kind);

/// Compares `text` with test/sched/golden/<name>.txt; UPDATE_GOLDEN=1 rewrites the file instead.
void check_golden(const std::string& name, const std::string& text);

std::string text(const Spec& spec);

}  // namespace kriek::sched_test
