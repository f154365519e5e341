// One test per validation error of Specs, each checking the message names the values.
#include <catch2/catch.hpp>

#include "spec/error.h"
#include "spec/spec.h"
#include "spec/target.h"
#include "support/tensors.h"

using namespace kriek;
using Catch::Matchers::Contains;

namespace {

TensorSpec t(Shape s, Level l = Level::GL) {
  TensorSpec x;
  x.shape = std::move(s);
  x.level = l;
  return x;
}

using kriek::testing::avx512;

}  // namespace

TEST_CASE("validation errors name the values", "[spec][validate][errors]") {
  auto check = [](const Spec& s, const std::string& part) {
    INFO(part);
    CHECK_THROWS_WITH(validate(s, avx512()), Contains(part));
  };
  check(Spec{Matmul{}, {t({8, 4}), t({8, 8})}}, "takes 2 inputs and an output, got 2");
  check(Spec{Matmul{}, {t({8, 4}), t({8, 8}), t({8, 8})}}, "inner dimensions disagree");
  check(Spec{Matmul{}, {t({8, 8}), t({8, 8}), t({8, 4})}}, "gives a 8x8 output, not 8x4");
  check(Spec{Conv{}, {t({4, 4}), t({5, 5, 2}), t({1, 1, 2})}}, "larger than the image");
  check(Spec{Conv{}, {t({8, 8, 3}), t({3, 3, 2, 4}), t({6, 6, 4})}}, "channels disagree");
  check(Spec{Binary{BinaryOp::add}, {t({4, 4}), t({3, 4}), t({4, 4})}}, "do not broadcast");
  check(Spec{ReduceSum{2, false}, {t({4, 4}), t({4})}}, "axis 2 is out of range");
  check(Spec{Unary{}, {t({4, 0}), t({4, 0})}}, "at least 1");
  TensorSpec f16 = t({4, 4});
  f16.dtype = Dtype::f16;
  check(Spec{Move{}, {f16, f16}}, "f16, which is not supported yet");
  check(Spec{Move{}, {t({4, 16}), t({4, 16}, Level::VRF)}}, "vector size 0");
  TensorSpec v = t({4, 8}, Level::VRF);
  v.vector_size = 16;
  check(Spec{Move{}, {t({4, 8}), v}}, "not whole vectors of 16");
  TensorSpec nv = t({4, 16});
  nv.vector_size = 16;
  check(Spec{Move{}, {nv, t({4, 16})}}, "is in GL, not VRF");
  check(Spec{Move{}, {t({4, 16}), t({4, 16}, Level::RF)}}, "bytes but RF holds 64");
  TensorSpec blk = t({4, 4});
  blk.layout = Layout::blocked(3, 4);
  check(Spec{Move{}, {blk, t({4, 4})}}, "invalid for rank 2");
  check(Spec{Compose{{Matmul{}}}, {t({4, 4}), t({4, 4}), t({4, 4})}}, "at least 2 stages");
  check(Spec{Compose{{Matmul{true}, Unary{}}}, {t({4, 4}), t({4, 4}), t({4, 4})}}, "stage 0 accumulates");
  const Target scalar = named_target("scalar");
  CHECK_THROWS_WITH(validate(Spec{Zero{}, {v}}, scalar), Contains("VRF, which target scalar does not have"));
  CHECK_NOTHROW(validate(Spec{Matmul{}, {t({8, 4}), t({4, 8}), t({8, 8})}}, avx512()));
}
