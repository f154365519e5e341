// The cost model's price of a prefetching alias (MoveOp::prefetch): each line's prefetch, the part of the lines'
// transfer the body's FMAs do not cover, and a share of the transfer that is always exposed.
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/cost.h"
#include "impl/node.h"

using namespace kriek;
using namespace kriek::test;

namespace {

/// The base cost of aliasing the rhs of `spec` into L1, prefetching or not (the body's Spec is what move_child_specs
/// gives).
Cost alias_cost(const Spec& spec, bool prefetch, const CostModel& m) {
  TensorSpec dest = spec.operands[1];
  dest.level = Level::L1;
  const MoveOp move{1, dest, true, false, false, prefetch};
  return node_cost(spec, move, move_child_specs(spec, move), avx512(), m).base;
}

}  // namespace

TEST_CASE("cost: a prefetching alias pays its prefetches and what the body's FMAs leave exposed", "[impl][cost]") {
  const CostModel m = CostModel::for_target(avx512());
  // matmul 64x64x64 from GL: B is 64 rows of 4 lines, 256 lines; the body does 64 * 64 * 4 vector FMAs, far more
  // time than the lines take.
  const Spec wide = matmul(ts({64, 64}), ts({64, 64}), ts({64, 64}, Level::L1));
  const Cost lines = 256, transfer = lines * m.line_from[0];
  CHECK(alias_cost(wide, false, m) == transfer);
  CHECK(alias_cost(wide, true, m) == lines * m.prefetch_line + transfer * m.prefetch_exposed_percent / 100);
  CHECK(alias_cost(wide, true, m) < alias_cost(wide, false, m));
  // One row of A against all of B: 4 * 64 FMAs cannot hide 256 lines, so the rest of the transfer is exposed too
  // and prefetching costs more than the plain alias.
  const Spec narrow = matmul(ts({1, 64}), ts({64, 64}), ts({1, 64}, Level::L1));
  const Cost compute = 4 * 64 * m.vector_fma;
  REQUIRE(transfer > compute);
  CHECK(alias_cost(narrow, true, m) ==
        lines * m.prefetch_line + transfer * m.prefetch_exposed_percent / 100 + (transfer - compute));
  CHECK(alias_cost(narrow, true, m) > alias_cost(narrow, false, m));
  // The constants are part of the model's identity.
  CostModel other = m;
  other.prefetch_exposed_percent += 1;
  CHECK(other.fingerprint() != m.fingerprint());
  other = m;
  other.prefetch_line += 1;
  CHECK(other.fingerprint() != m.fingerprint());
}
