// Random valid Specs of every op kind for the sched property tests: matmuls (batched too), the three conv forms,
// moves between levels and layouts, zero, relu, broadcasting binaries, reducesums, and Composes of 2-3 stages;
// operands at random memory levels and layouts, sometimes strided or unaligned, extents 1 to 12.
#pragma once

#include <random>

#include "spec/spec.h"

namespace kriek::sched_test {

inline constexpr int kRandomKinds = 8;

/// A random Spec of kind `kind` (0 matmul, 1 conv, 2 move, 3 zero, 4 relu, 5 binary, 6 reducesum, 7 compose).
Spec random_spec(std::mt19937_64& rng, int kind);

}  // namespace kriek::sched_test
