// The fluent Schedule: immutable steps, the focus rule, holes by name, user errors that carry the operator's
// numbered reason, split's implicit to_accum, and complete() with the default or another completer.
#include <catch2/catch.hpp>

#include "helpers.h"
#include "sched/default_schedule.h"
#include "sched/schedule.h"
#include "spec/error.h"

using namespace kriek;
using namespace kriek::sched_test;
using Catch::Matchers::Contains;

TEST_CASE("a fresh Schedule is one focused hole, steps leave it unchanged", "[sched][schedule]") {
  const Schedule s = schedule(matmul({8, 8}, {8, 8}), avx512());
  REQUIRE(s.holes().size() == 1);
  CHECK(s.focused()->name == "h1");
  const Schedule t = s.tile_out({4, 4});
  CHECK(s.holes().size() == 1);
  CHECK(t.holes().size() == 1);
  CHECK(t.focused()->spec.output().shape == Shape{4, 4});
}

TEST_CASE("the focus follows the schedule into what each operator made", "[sched][schedule]") {
  // Boundary bodies: the focus is the full tile's body.
  const Schedule s = schedule(matmul({10, 6}, {6, 7}, true), avx512()).tile_out({4, 3});
  REQUIRE(s.holes().size() == 4);
  CHECK(s.focused()->spec.output().shape == Shape{4, 3});
  // A move: its body, not its load prologue.
  const Schedule m = s.move_input(0, Level::L1, Layout::col_major());
  CHECK(m.holes().size() == 5);
  CHECK(m.focused()->spec.input(0).level == Level::L1);
  // focus by name, then an operator there.
  std::string corner;  // the body of the bottom-right boundary tile, 2x1
  for (const auto& h : m.holes()) {
    if (h.spec.output().shape == Shape{2, 1}) corner = h.name;
  }
  const Schedule b = m.focus(corner);
  CHECK(b.focused()->name == corner);
  const Schedule t = b.tile_out({1, 1});
  CHECK(t.focused()->spec.output().shape == Shape{1, 1});
  // select makes no hole: the focus returns to the first open one.
  const Schedule k = schedule(move_spec(ts({1, 1}), ts({1, 1}, Level::RF)), avx512()).select(KernelKind::scalar_copy);
  CHECK(k.holes().empty());
  CHECK_FALSE(k.focused().has_value());
}

TEST_CASE("holes are addressed by name, unknown names are user errors", "[sched][schedule]") {
  const Schedule s = schedule(matmul({10, 6}, {6, 7}, true), avx512()).tile_out({4, 3});
  CHECK(s.focus("h4").focused()->spec.output().shape == Shape{2, 1});
  CHECK_THROWS_WITH(s.focus("h9"), Contains("no hole named h9; the schedule has h1 to h4"));
  CHECK_THROWS_WITH(s.focus("2"), Contains("no hole named 2"));
}

TEST_CASE("illegal steps throw UserError with the numbered reason", "[sched][schedule]") {
  const Schedule s = schedule(matmul({8, 8}, {8, 8}), avx512());
  CHECK_THROWS_AS(s.tile_out({0, 4}), UserError);
  CHECK_THROWS_WITH(s.tile_out({0, 4}),
                    Contains("cannot apply `tile_out 0 4` to h1") && Contains("tile_out (2): tile extent 0"));
  CHECK_THROWS_WITH(s.move_output(Level::GL), Contains("move_to (5)"));
  CHECK_THROWS_WITH(s.move_input(2, Level::L1), Contains("move_input: input 2 does not exist"));
  CHECK_THROWS_WITH(s.slide(0, 2, Level::L1), Contains("slide (1)"));
  CHECK_THROWS_WITH(s.select(KernelKind::bcast_fma), Contains("select (1)"));
  CHECK_THROWS_WITH(s.complete().tile_out({4, 4}), Contains("the schedule is complete"));
}

TEST_CASE("split of a plain reduction applies to_accum first and focuses the split's body", "[sched][schedule]") {
  const Schedule s = schedule(matmul({4, 8}, {8, 4}), avx512()).split(2);
  REQUIRE(s.holes().size() == 2);
  CHECK(std::holds_alternative<Zero>(s.holes()[0].spec.op));
  CHECK(s.focused()->spec.input(0).shape == Shape{4, 2});
  CHECK(accumulates(s.focused()->spec.op));
  // An op without an accumulating form keeps split's own reason.
  CHECK_THROWS_WITH(schedule(relu({4, 4}), avx512()).split(2), Contains("split (1)"));
}

TEST_CASE("move to VRF fills in the target's vector size", "[sched][schedule]") {
  const Schedule s = schedule(relu({2, 16}), avx512()).move_output(Level::VRF);
  CHECK(s.focused()->spec.output().vector_size == 16);
  const Schedule done = s.complete();
  std::mt19937_64 rng(5);
  CHECK(interprets_reference(done.impl(), rng));
}

TEST_CASE("to_accum and bufferize through the fluent API", "[sched][schedule]") {
  const Spec c = compose({Conv{}, ReduceSum{2, false}, Conv{}}, {{10, 10}, {5, 5, 6}, {5, 5, 6}});
  const Schedule s = schedule(c, avx512()).bufferize(1, Level::L1).tile_out({2, 2, 3});
  CHECK(s.holes().size() == 2);
  const Schedule t = s.focus("h2").to_accum();
  CHECK(std::holds_alternative<Zero>(t.holes()[1].spec.op));
  std::mt19937_64 rng(9);
  CHECK(interprets_reference(t.complete().impl(), rng));
}

TEST_CASE("complete() with another completer", "[sched][schedule]") {
  const Schedule s = schedule(matmul({6, 5}, {5, 4}), avx512()).tile_out({4, 4});
  int calls = 0;
  const Schedule done = s.complete([&](const Spec& spec) {
    ++calls;
    return default_schedule(spec, avx512());
  });
  CHECK(calls == 2);
  CHECK(done.holes().empty());
  std::mt19937_64 rng(2);
  CHECK(interprets_reference(done.impl(), rng));
  CHECK_THROWS_WITH(s.complete([](const Spec&) { return make_hole(zero({1})); }),
                    Contains("the completer did not return an Impl of"));
  CHECK_THROWS_WITH(s.complete([](const Spec& spec) { return make_hole(spec); }), Contains("left holes"));
}

TEST_CASE("completing the focused hole focuses the first hole left", "[sched][schedule]") {
  const Schedule s = schedule(matmul({6, 5}, {5, 4}), avx512()).tile_out({4, 4});
  REQUIRE(s.holes().size() == 2);
  const auto fill = [](const Spec& spec) { return default_schedule(spec, avx512()); };
  const Schedule one = s.focus("h2").complete_focused(fill);
  REQUIRE(one.holes().size() == 1);
  REQUIRE(one.focused());
  CHECK(one.focused()->name == "h1");
  CHECK(one.focused()->spec == one.holes().front().spec);
  const Schedule both = one.complete_focused(fill);
  CHECK(both.holes().empty());
  CHECK_FALSE(both.focused());
}
