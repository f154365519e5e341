// The interpreter against reference(): hand-built trees of every node kind, run on random inputs, must equal the
// reference semantics of their root Spec; slide windows must shift rather than reload.
#include <catch2/catch.hpp>

#include <cmath>

#include "builders.h"
#include "impl/interpreter.h"
#include "trees.h"

using namespace kriek;
using namespace kriek::test;

TEST_CASE("a hole runs reference() of its Spec", "[interpreter]") {
  check_interpreted(make_hole(matmul(ts({5, 7}), ts({7, 3}), ts({5, 3}))));
  check_interpreted(make_hole(matmul(ts({5, 7}), ts({7, 3}), ts({5, 3}), true)));
}

TEST_CASE("tile loops visit full and boundary tiles", "[interpreter]") {
  check_interpreted(boundary_tree(), 2);
  check_interpreted(figure1_tree(), 3);
}

TEST_CASE("parallel tile, split with a remainder and a zero-then-accumulate block", "[interpreter]") {
  check_interpreted(ptile_block_tree(), 4);
}

TEST_CASE("moves to a padded blocked layout and to RF, scalar kernels", "[interpreter]") {
  check_interpreted(scalar_tree(), 5);
}

TEST_CASE("an output moved to VRF and back, vector kernels and bcast_fma", "[interpreter]") {
  check_interpreted(micro_kernel_tree(), 6);
  check_interpreted(relu_vector_tree(), 7);
}

TEST_CASE("an accumulating output moved to VRF is loaded, accumulated and stored", "[interpreter]") {
  const Spec s = matmul(ts({2, 1}), ts({1, 16}), ts({2, 16}), true);
  const TensorSpec vrf = ts({2, 16}, Level::VRF, Layout::row_major(), 16);
  auto rows = [](KernelKind k) {
    return [k](const Spec& m) {
      Loop l;
      l.axes = {{2, 1}};
      l.operands = {dims({0, -1}), dims({0, -1})};
      return loop_of(m, l, kernel(k));
    };
  };
  auto impl = move_of(s, 2, vrf, [](const Spec& b) {
    return move_of(b, 1, ts({1, 16}, Level::VRF, Layout::row_major(), 16), kernel(KernelKind::bcast_fma),
                   kernel(KernelKind::vec_load));
  }, rows(KernelKind::vec_load), rows(KernelKind::vec_store));
  check_interpreted(impl, 8);
}

TEST_CASE("a move without its load leaves the buffer poisoned", "[interpreter]") {
  // An accumulating output moved without a prologue reads NaN: the interpreter does not pass views through.
  const Spec s = matmul(ts({2, 3}), ts({3, 4}), ts({2, 4}), true);
  auto impl = move_of(s, 2, ts({2, 4}, Level::L1, Layout::col_major()), hole, nullptr, hole);
  std::vector<float> a(6, 1.0f), b(12, 1.0f), c(8, 0.0f);
  std::vector<float*> ops{a.data(), b.data(), c.data()};
  interpret(impl, ops);
  CHECK(std::isnan(c[0]));
}

TEST_CASE("a slide window shifts its overlap and loads only new rows", "[interpreter]") {
  check_interpreted(slide_tree(), 9);
  std::vector<float> img(120, 1.0f), filters(36, 1.0f), out(320, 0.0f);
  std::vector<float*> ops{img.data(), filters.data(), out.data()};
  InterpretStats stats;
  interpret(slide_tree(), ops, stats);
  // Windows hold rows [0,5), [3,8), [6,10): every image row is loaded once, 2 rows are kept twice.
  CHECK(stats.window_loads == 120);
  CHECK(stats.window_shifts == 2 * 2 * 12);
  CHECK(out[0] == 9.0f);
}

TEST_CASE("a slide over two dimensions with boundaries in both", "[interpreter]") {
  check_interpreted(slide2_tree(), 10);
  std::vector<float> img(9 * 11 * 2), filters(3 * 2 * 2 * 3), out(7 * 10 * 3);
  std::vector<float*> ops{img.data(), filters.data(), out.data()};
  InterpretStats stats;
  interpret(slide2_tree(), ops, stats);
  CHECK(stats.window_shifts > 0);
  CHECK(stats.window_loads < 3 * static_cast<std::int64_t>(img.size()));
}

TEST_CASE("pipelines run head then tail through a buffer in its layout", "[interpreter]") {
  check_interpreted(pipeline_tree(), 11);
  const Compose c{{Matmul{}, Unary{}}};
  const Spec s{c, {ts({4, 6}), ts({6, 5}), ts({4, 5})}, false};
  Pipeline p{1, ts({4, 5}, Level::L1, Layout::col_major())};
  auto specs = pipeline_child_specs(s, p);
  check_interpreted(make_pipeline(s, p, {make_hole(specs[0]), make_hole(specs[1])}), 12);
}

TEST_CASE("an aliasing move passes the view through", "[interpreter]") {
  const Spec s = matmul(ts({4, 4}), ts({4, 4}), ts({4, 4}));
  MoveOp m{0, ts({4, 4}, Level::L1), true, false, false};
  auto impl = make_move(s, m, {make_hole(move_child_specs(s, m)[0])});
  check_interpreted(impl, 13);
}
