// Helpers for impl tests: short constructors of TensorSpecs, Specs and loops, builders that fill a node's children
// from a function of their Specs, and the check that an Impl interpreted on random inputs equals reference().
#pragma once

#include <functional>
#include <string>

#include "impl/cost.h"
#include "impl/kernel.h"
#include "impl/node.h"
#include "spec/target.h"
#include "support/tensors.h"

namespace kriek::test {

using kriek::testing::avx512;
using kriek::testing::ts;

Spec matmul(TensorSpec a, TensorSpec b, TensorSpec c, bool accumulate = false);
Spec move_spec(TensorSpec in, TensorSpec out);

/// A map of one operand: entry d is the loop axis that dimension d follows (-1: whole extent), halo 0.
OperandMap dims(std::initializer_list<int> axes);
/// A tile loop over the output of a rank-2 matmul with tile tm x tn.
Loop matmul_tile(const Spec& s, std::int64_t tm, std::int64_t tn, bool parallel = false);
/// A split loop over a rank-2 matmul's K with tile k.
Loop matmul_split(const Spec& s, std::int64_t k);

using Build = std::function<ImplPtr(const Spec&)>;
/// A Build that leaves the Spec a Hole.
ImplPtr hole(const Spec& s);
/// A loop whose body of each boundary pattern is body(its Spec).
ImplPtr loop_of(const Spec& s, Loop loop, const Build& body);
/// A move of operand `op` to `dest` (same shape) with load/store as given; children built by the functions.
ImplPtr move_of(const Spec& s, std::uint8_t op, TensorSpec dest, const Build& body, const Build& load = nullptr,
                const Build& store = nullptr);
/// A kernel leaf on the avx512 target.
Build kernel(KernelKind k);

/// The default cost model of avx512() (the cost tests' constants).
const CostModel& avx512_model();
/// The cost of one call of kernel `k` on `s`, as evaluate prices the leaf.
Cost kernel_cost(KernelKind k, const Spec& s, const CostModel& m = avx512_model());
/// ts() with its elements not one contiguous run (a tile of a larger tensor).
TensorSpec strided(Shape s, Level l = Level::GL);

/// Runs `impl` in the interpreter and reference() on the same random inputs (seeded) and requires equal outputs.
void check_interpreted(const ImplPtr& impl, unsigned seed = 1);

/// Compares `text` with test/impl/golden/<name>.txt; UPDATE_GOLDEN=1 rewrites the file instead.
void check_golden(const std::string& name, const std::string& text);

}  // namespace kriek::test
