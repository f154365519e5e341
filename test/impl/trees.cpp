// The hand-built Impl trees of trees.h.
#include "trees.h"

#include "builders.h"

namespace kriek::test {
namespace {

/// The tile loop of a Move, Zero or Unary Spec over every dimension: tile[d] per dimension, all operands alike.
Loop elementwise_tile(const Spec& s, const Shape& tile) {
  Loop l;
  OperandMap m;
  for (std::size_t d = 0; d < tile.size(); ++d) {
    l.axes.push_back({s.output().shape[d], tile[d]});
    m.push_back(DimMap{static_cast<std::int8_t>(d), 0});
  }
  l.operands.assign(s.operands.size(), m);
  return l;
}

/// Moves of rank-2 shapes between memory and VRF, one vector (1x16) per kernel call.
Build vector_rows(KernelKind k) {
  return [k](const Spec& s) { return loop_of(s, elementwise_tile(s, {1, 16}), kernel(k)); };
}

Spec conv_spec(Shape img, Shape filters, Shape out) {
  return Spec{Conv{}, {ts(std::move(img)), ts(std::move(filters)), ts(std::move(out))}, false};
}

}  // namespace

ImplPtr figure1_tree() {
  const Spec s = matmul(ts({128, 128}), ts({128, 128}), ts({128, 128}), true);
  return loop_of(s, matmul_tile(s, 32, 32), [](const Spec& t) {
    return move_of(t, 0, ts({32, 128}, Level::L1), [](const Spec& m) {
      return loop_of(m, matmul_split(m, 64), [](const Spec& k) {
        return move_of(k, 1, ts({64, 32}, Level::L1), [](const Spec& r) {
          return move_of(r, 2, ts({32, 32}, Level::L1), hole, hole, hole);
        }, hole);
      });
    }, hole);
  });
}

ImplPtr boundary_tree() {
  const Spec s = matmul(ts({10, 6}), ts({6, 7}), ts({10, 7}), true);
  return loop_of(s, matmul_tile(s, 4, 3), hole);
}

ImplPtr ptile_block_tree() {
  const Spec s = matmul(ts({8, 7}), ts({7, 6}), ts({8, 6}));
  return loop_of(s, matmul_tile(s, 4, 6, true), [](const Spec& t) {
    Spec zero{Zero{}, {t.output()}, t.serial_only};
    Spec acc = t;
    acc.op = Matmul{true};
    return make_block(t, Block{{{2}, {0, 1, 2}}},
                      {hole(zero), loop_of(acc, matmul_split(acc, 3), hole)});
  });
}

ImplPtr scalar_tree() {
  const Spec s = matmul(ts({3, 4}), ts({4, 5}), ts({3, 5}), true);
  return move_of(s, 1, ts({4, 5}, Level::L1, Layout::blocked(1, 2)), [](const Spec& b) {
    return loop_of(b, matmul_tile(b, 1, 1), [](const Spec& t) {
      return loop_of(t, matmul_split(t, 1), [](const Spec& k) {
        return move_of(k, 2, ts({1, 1}, Level::RF), kernel(KernelKind::scalar_mult_add),
                       kernel(KernelKind::scalar_copy), kernel(KernelKind::scalar_copy));
      });
    });
  }, hole);
}

ImplPtr micro_kernel_tree() {
  const Spec s = matmul(ts({3, 4}), ts({4, 32}), ts({3, 32}));
  const TensorSpec out_vrf = ts({3, 32}, Level::VRF, Layout::row_major(), 16);
  return move_of(s, 2, out_vrf, [](const Spec& m) {
    Spec zero{Zero{}, {m.output()}, m.serial_only};
    Spec acc = m;
    acc.op = Matmul{true};
    auto accumulate = loop_of(acc, matmul_split(acc, 1), [](const Spec& k) {
      return move_of(k, 1, ts({1, 32}, Level::VRF, Layout::row_major(), 16), kernel(KernelKind::bcast_fma),
                     vector_rows(KernelKind::vec_load));
    });
    auto zeros = loop_of(zero, elementwise_tile(zero, {1, 16}), kernel(KernelKind::vec_zero));
    return make_block(m, Block{{{2}, {0, 1, 2}}}, {zeros, accumulate});
  }, nullptr, vector_rows(KernelKind::vec_store));
}

ImplPtr relu_vector_tree() {
  const Spec s{Unary{UnaryOp::relu}, {ts({2, 32}), ts({2, 32})}, false};
  return loop_of(s, elementwise_tile(s, {1, 16}), [](const Spec& t) {
    return move_of(t, 0, ts({1, 16}, Level::VRF, Layout::row_major(), 16), [](const Spec& m) {
      return move_of(m, 1, ts({1, 16}, Level::VRF, Layout::row_major(), 16), kernel(KernelKind::vec_unary), nullptr,
                     kernel(KernelKind::vec_store));
    }, kernel(KernelKind::vec_load));
  });
}

ImplPtr slide_tree() {
  const Spec s = conv_spec({10, 12}, {3, 3, 4}, {8, 10, 4});
  Loop l;
  l.kind = LoopKind::slide;
  l.axes = {{8, 3}};
  l.operands = {{DimMap{0, 2}, DimMap{-1, 0}}, dims({-1, -1, -1}), dims({0, -1, -1})};
  l.window = SlideWindow{0, Level::L1, Layout::col_major(), {}};
  return loop_of(s, l, hole);
}

ImplPtr slide2_tree() {
  const Spec s = conv_spec({9, 11, 2}, {3, 2, 2, 3}, {7, 10, 3});
  Loop l;
  l.kind = LoopKind::slide;
  l.axes = {{7, 3}, {10, 4}};
  l.operands = {{DimMap{0, 2}, DimMap{1, 1}, DimMap{-1, 0}}, dims({-1, -1, -1, -1}), dims({0, 1, -1})};
  l.window = SlideWindow{0, Level::L1, Layout::blocked(1, 4), {}};
  return loop_of(s, l, hole);
}

ImplPtr pipeline_tree() {
  const Compose c{{Conv{}, ReduceSum{2, false}, Conv{}}};
  const Spec s{c, {ts({10, 10}), ts({5, 5, 6}), ts({5, 5, 6}), ts({2, 2, 6})}, false};
  Pipeline first{1, ts({6, 6, 6}, Level::L1, Layout::blocked(2, 4))};
  auto specs = pipeline_child_specs(s, first);
  Pipeline second{1, ts({6, 6}, Level::L2, Layout::col_major())};
  auto tail_specs = pipeline_child_specs(specs[1], second);
  auto tail = make_pipeline(specs[1], second, {hole(tail_specs[0]), hole(tail_specs[1])});
  return make_pipeline(s, first, {hole(specs[0]), tail});
}

}  // namespace kriek::test
