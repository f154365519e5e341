// Golden tests of the report's Figure 1 (matmul 128^3) and Figure 3 (conv 128x128 with 5x5x32 filters) written
// with the fluent Schedule API and completed by the default schedule, and of a register-tiled matmul
// micro-kernel (bcast_fma on a 6x32 VRF output); each must compute the reference.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "impl/printer.h"
#include "sched/schedule.h"

using namespace kriek;
using namespace kriek::sched_test;

TEST_CASE("Figure 1: tile_out 32x32, move lhs, split 64, move rhs, move out, complete", "[sched][golden]") {
  const Spec spec = matmul({128, 128}, {128, 128});
  const Schedule s = schedule(spec, avx512())
                         .tile_out({32, 32})
                         .move_input(0, Level::L1)
                         .split(64)
                         .move_input(1, Level::L1)
                         .move_output(Level::L1)
                         .complete();
  REQUIRE(s.holes().empty());
  check_golden("figure1", print_impl(s.impl()));
  std::mt19937_64 rng(1);
  CHECK(interprets_reference(s.impl(), rng));
}

TEST_CASE("Figure 3: slide dim 0 size 32, tile_out 32x32x1, move img, filters, out, complete", "[sched][golden]") {
  Spec spec = conv({128, 128}, {5, 5, 32});
  spec.serial_only = true;
  const Schedule slid = schedule(spec, avx512()).slide(0, 32, Level::L1);
  REQUIRE(slid.focused()->spec.operands[0].shape == Shape{36, 128});
  const Schedule s = slid.tile_out({32, 32, 1})
                         .move_input(0, Level::L1)
                         .move_input(1, Level::L1)
                         .move_output(Level::L1)
                         .complete();
  REQUIRE(s.holes().empty());
  check_golden("figure3", print_impl(s.impl()));
  std::mt19937_64 rng(3);
  CHECK(interprets_reference(s.impl(), rng));
}

TEST_CASE("a register-tiled micro-kernel: out to VRF, split 1, rhs to VRF, bcast_fma", "[sched][golden]") {
  const Schedule s = schedule(matmul({6, 8}, {8, 32}), avx512())
                         .move_output(Level::VRF)
                         .split(1)
                         .move_input(1, Level::VRF)
                         .select(KernelKind::bcast_fma)
                         .complete();
  REQUIRE(s.holes().empty());
  check_golden("micro_kernel", print_impl(s.impl()));
  std::mt19937_64 rng(6);
  CHECK(interprets_reference(s.impl(), rng));
}
