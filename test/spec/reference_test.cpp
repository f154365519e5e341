// The reference semantics of every op kind on small hand-computed cases.
#include <catch2/catch.hpp>

#include "spec/reference.h"

using namespace kriek;

namespace {

TensorSpec t(Shape s) {
  TensorSpec x;
  x.shape = std::move(s);
  return x;
}

std::vector<float> run(const Spec& spec, const std::vector<std::vector<float>>& inputs, std::vector<float> out) {
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  reference(spec, in, out.data());
  return out;
}

}  // namespace

TEST_CASE("reference: matmul, accumulating and batched", "[spec][reference]") {
  const Spec mm{Matmul{}, {t({2, 2}), t({2, 2}), t({2, 2})}};
  CHECK(run(mm, {{1, 2, 3, 4}, {5, 6, 7, 8}}, {9, 9, 9, 9}) == std::vector<float>{19, 22, 43, 50});
  const Spec acc{Matmul{true}, {t({2, 2}), t({2, 2}), t({2, 2})}};
  CHECK(run(acc, {{1, 2, 3, 4}, {5, 6, 7, 8}}, {1, 1, 1, 1}) == std::vector<float>{20, 23, 44, 51});
  const Spec batched{Matmul{}, {t({2, 1, 2}), t({2, 2, 1}), t({2, 1, 1})}};
  CHECK(run(batched, {{1, 2, 3, 4}, {1, 1, 2, 3}}, {0, 0}) == std::vector<float>{3, 18});
}

TEST_CASE("reference: conv in its three forms", "[spec][reference]") {
  // 3x3 image, one 2x2 filter: out[y][x] = sum img[y+i][x+j] * f[i][j].
  const Spec c2{Conv{}, {t({3, 3}), t({2, 2, 1}), t({2, 2, 1})}};
  CHECK(run(c2, {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 0, 0, 1}}, {0, 0, 0, 0}) == std::vector<float>{6, 8, 12, 14});
  // Two channels, 1x1 filters, two output filters: out[f] = sum_c img[c] * w[c][f].
  const Spec c3{Conv{}, {t({1, 1, 2}), t({1, 1, 2, 2}), t({1, 1, 2})}};
  CHECK(run(c3, {{2, 3}, {1, 10, 100, 1000}}, {0, 0}) == std::vector<float>{302, 3020});
  const Spec c4{Conv{true}, {t({2, 1, 1, 1}), t({1, 1, 1, 1}), t({2, 1, 1, 1})}};
  CHECK(run(c4, {{2, 5}, {3}}, {1, 1}) == std::vector<float>{7, 16});
}

TEST_CASE("reference: move, zero, relu, binary ops with broadcasting", "[spec][reference]") {
  CHECK(run(Spec{Move{}, {t({2, 2}), t({2, 2})}}, {{1, 2, 3, 4}}, {0, 0, 0, 0}) == std::vector<float>{1, 2, 3, 4});
  CHECK(run(Spec{Zero{}, {t({3})}}, {}, {5, 6, 7}) == std::vector<float>{0, 0, 0});
  CHECK(run(Spec{Unary{}, {t({4}), t({4})}}, {{-1, 2, -3, 0}}, {9, 9, 9, 9}) == std::vector<float>{0, 2, 0, 0});
  // A 2x1 column plus a 1x3 row.
  const Spec add{Binary{BinaryOp::add}, {t({2, 1}), t({1, 3}), t({2, 3})}};
  CHECK(run(add, {{10, 20}, {1, 2, 3}}, std::vector<float>(6)) == std::vector<float>{11, 12, 13, 21, 22, 23});
  const Spec mul{Binary{BinaryOp::mul}, {t({2}), t({2}), t({2})}};
  CHECK(run(mul, {{3, 4}, {5, 6}}, {0, 0}) == std::vector<float>{15, 24});
  const Spec sub{Binary{BinaryOp::sub}, {t({2}), t({2}), t({2})}};
  CHECK(run(sub, {{3, 4}, {5, 6}}, {0, 0}) == std::vector<float>{-2, -2});
  const Spec mx{Binary{BinaryOp::max}, {t({2}), t({2}), t({2})}};
  CHECK(run(mx, {{3, 7}, {5, 6}}, {0, 0}) == std::vector<float>{5, 7});
}

TEST_CASE("reference: reducesum over either axis, accumulating", "[spec][reference]") {
  const std::vector<float> m{1, 2, 3, 4, 5, 6};  // 2x3
  CHECK(run(Spec{ReduceSum{0, false}, {t({2, 3}), t({3})}}, {m}, {9, 9, 9}) == std::vector<float>{5, 7, 9});
  CHECK(run(Spec{ReduceSum{1, false}, {t({2, 3}), t({2})}}, {m}, {9, 9}) == std::vector<float>{6, 15});
  CHECK(run(Spec{ReduceSum{1, true}, {t({2, 3}), t({2})}}, {m}, {1, 1}) == std::vector<float>{7, 16});
}

TEST_CASE("reference: compose pipelines", "[spec][reference]") {
  // relu(A.B) with A.B = [[19, 22], [-43, -50]].
  const Spec mr{Compose{{Matmul{}, Unary{}}}, {t({2, 2}), t({2, 2}), t({2, 2})}};
  CHECK(run(mr, {{1, 2, -3, -4}, {5, 6, 7, 8}}, std::vector<float>(4)) == std::vector<float>{19, 22, 0, 0});
  // Figure 2's chain on a tiny case: conv (3x3 image, 2x2x2 filters) -> reducesum over filters -> conv (2x2x1).
  const Spec fig2{Compose{{Conv{}, ReduceSum{2, false}, Conv{}}}, {t({3, 3}), t({2, 2, 2}), t({2, 2, 1}), t({1, 1, 1})}};
  // Filters: first all ones, second picks the top-left element; sums per position: window sum + top-left.
  const std::vector<float> img{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> fa{1, 1, 1, 0, 1, 0, 1, 0};  // [i][j][f]
  // Stage 1 out[y][x] = (window sum, top-left); stage 2 sums them: (12+1, 16+2, 24+4, 28+5) = 13, 18, 28, 33;
  // stage 3 with filter [[1,0],[0,1]]: 13 + 33 = 46.
  CHECK(run(fig2, {img, fa, {1, 0, 0, 1}}, {0}) == std::vector<float>{46});
}
