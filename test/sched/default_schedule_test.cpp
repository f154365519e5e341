// The default schedule: complete Impls computing the reference for every op kind and every level and layout a
// Spec can have (random memory levels, layouts, strided and unaligned operands), register operands, and the VRF
// Specs vector kernels serve; a user error names the Spec when no default exists.
#include <catch2/catch.hpp>

#include <iostream>

#include "helpers.h"
#include "sched/default_schedule.h"
#include "spec/error.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

namespace {

TensorSpec vrf(Shape s) { return ts(std::move(s), Level::VRF, Layout::row_major(), 16); }

void check_default(const Spec& spec, const Target& target = avx512()) {
  INFO("spec " << text(spec));
  const ImplPtr impl = default_schedule(spec, target);
  REQUIRE(is_complete(impl));
  std::mt19937_64 rng(17);
  CHECK(interprets_reference(impl, rng));
}

}  // namespace

TEST_CASE("default schedule: random Specs of every kind, level and layout", "[sched][default]") {
  const std::uint64_t seed = test_seed(77);
  std::cout << "default schedule seed " << seed << " (KRIEK_SEED overrides)\n";
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 8; ++round) {
    for (int kind = 0; kind < kRandomKinds; ++kind) {
      const Spec s = random_spec(rng, kind);
      check_default(s);
      check_default(s, scalar_target());
    }
  }
}

TEST_CASE("default schedule: operands in RF", "[sched][default]") {
  check_default(Spec{Matmul{}, {ts({2, 3}, Level::RF), ts({3, 2}), ts({2, 2}, Level::RF)}, false});
  check_default(Spec{Unary{}, {ts({4, 4}, Level::RF), ts({4, 4}, Level::L1, Layout::col_major())}, false});
  check_default(move_spec(ts({3, 5}, Level::RF), ts({3, 5}, Level::L2, Layout::blocked(1, 4))));
  check_default(Spec{Conv{true}, {ts({3, 3}, Level::RF), ts({3, 3, 1}, Level::RF), ts({1, 1, 1})}, false});
}

TEST_CASE("default schedule: VRF operands use the vector kernels", "[sched][default]") {
  check_default(Spec{Matmul{}, {ts({3, 4}), ts({4, 32}), vrf({3, 32})}, false});
  check_default(Spec{Matmul{true}, {ts({2, 3}, Level::L1, Layout::col_major()), vrf({3, 16}), ts({2, 16})}, false});
  check_default(move_spec(ts({2, 16}), vrf({2, 16})));
  check_default(move_spec(vrf({4, 4}), ts({4, 4})));
  // Memory operands that vec_load and vec_store cannot reach are packed first in the enclosing Spec.
  check_default(Spec{Unary{}, {ts({2, 16}, Level::GL, Layout::col_major()), vrf({2, 16})}, false});
  check_default(Spec{Unary{}, {vrf({2, 16}), ts({2, 16}, Level::L1, Layout::blocked(1, 3))}, false});
  TensorSpec strided = ts({1, 16}, Level::L1);
  strided.contiguous = false;
  check_default(Spec{Matmul{}, {ts({1, 2}), ts({2, 16}), strided}, false});
  check_default(Spec{Unary{}, {strided, vrf({1, 16})}, false});
  check_default(Spec{Unary{}, {vrf({2, 16}), ts({2, 16})}, false});
  check_default(Spec{Binary{BinaryOp::sub}, {ts({1, 32}), vrf({1, 32}), ts({1, 32}, Level::L2)}, false});
  check_default(Spec{Zero{}, {vrf({3, 16})}, false});
}

TEST_CASE("default schedule: user errors name the Spec", "[sched][default]") {
  CHECK_THROWS_AS(default_schedule(Spec{Conv{}, {vrf({4, 4}), ts({1, 1, 16}), ts({4, 4, 16})}, false}, avx512()),
                  UserError);
  CHECK_THROWS_WITH(default_schedule(Spec{Conv{}, {vrf({4, 4}), ts({1, 1, 16}), ts({4, 4, 16})}, false}, avx512()),
                    Contains("no default schedule for conv") && Contains("no vector kernel implements conv"));
  CHECK_THROWS_WITH(default_schedule(move_spec(ts({2, 16}, Level::GL, Layout::col_major()), vrf({2, 16})), avx512()),
                    Contains("no default schedule for move") && Contains("vec_load and vec_store need"));
  TensorSpec half = ts({2, 2});
  half.dtype = Dtype::f16;
  CHECK_THROWS_WITH(default_schedule(Spec{Unary{}, {half, half}, false}, avx512()), Contains("no kernel computes f16"));
}
