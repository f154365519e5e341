// Specs are regular values: cereal round trips (binary and JSON) keep every field, equal Specs hash equal, and
// Specs differing in any one field differ.
#include <catch2/catch.hpp>

#include <sstream>
#include <unordered_map>

#include <cereal/archives/binary.hpp>
#include <cereal/archives/json.hpp>

#include "spec/spec.h"

using namespace kriek;

namespace {

TensorSpec t(Shape s) {
  TensorSpec x;
  x.shape = std::move(s);
  return x;
}

std::vector<Spec> one_of_each() {
  TensorSpec odd = t({4, 16});
  odd.level = Level::VRF;
  odd.vector_size = 16;
  TensorSpec packed = t({4, 16});
  packed.level = Level::L1;
  packed.layout = Layout::blocked(1, 8);
  packed.aligned = false;
  packed.contiguous = false;
  TensorSpec col = t({4, 16});
  col.layout = Layout::col_major();
  col.dtype = Dtype::f16;
  return {Spec{Matmul{true}, {t({4, 8}), t({8, 16}), odd}, true},
          Spec{Conv{}, {t({6, 6, 2}), t({3, 3, 2, 4}), t({4, 4, 4})}},
          Spec{Move{}, {packed, col}},
          Spec{Zero{}, {odd}},
          Spec{Unary{UnaryOp::relu}, {t({2, 2}), t({2, 2})}},
          Spec{Binary{BinaryOp::max}, {t({2, 2}), t({1, 2}), t({2, 2})}},
          Spec{ReduceSum{1, true}, {t({2, 3}), t({2})}},
          Spec{Compose{{Conv{}, ReduceSum{2, false}, Conv{}}}, {t({10, 10}), t({5, 5, 6}), t({5, 5, 6}), t({2, 2, 6})}}};
}

template <class In, class Out>
Spec round_trip(const Spec& s) {
  std::stringstream buffer;
  {
    Out out(buffer);
    out(s);
  }
  Spec back;
  In in(buffer);
  in(back);
  return back;
}

}  // namespace

TEST_CASE("cereal round trips keep every op kind and field", "[spec][serialize]") {
  for (const Spec& s : one_of_each()) {
    CHECK(round_trip<cereal::BinaryInputArchive, cereal::BinaryOutputArchive>(s) == s);
    CHECK(round_trip<cereal::JSONInputArchive, cereal::JSONOutputArchive>(s) == s);
  }
}

TEST_CASE("hashing: equal Specs hash equal, any changed field makes another Spec", "[spec][hash]") {
  const Spec base{Matmul{}, {t({4, 8}), t({8, 16}), t({4, 16})}};
  CHECK(hash_value(base) == hash_value(Spec(base)));
  std::vector<Spec> variants;
  auto vary = [&](auto change) {
    Spec s = base;
    change(s);
    variants.push_back(s);
  };
  vary([](Spec& s) { s.op = Matmul{true}; });
  vary([](Spec& s) { s.op = Conv{}; });
  vary([](Spec& s) { s.operands[0].shape = {4, 9}; });
  vary([](Spec& s) { s.operands[0].dtype = Dtype::f16; });
  vary([](Spec& s) { s.operands[0].level = Level::L1; });
  vary([](Spec& s) { s.operands[0].layout = Layout::col_major(); });
  vary([](Spec& s) { s.operands[0].vector_size = 16; });
  vary([](Spec& s) { s.operands[0].aligned = false; });
  vary([](Spec& s) { s.operands[0].contiguous = false; });
  vary([](Spec& s) { s.serial_only = true; });
  std::unordered_map<Spec, int, SpecHash> map{{base, -1}};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    CHECK_FALSE(variants[i] == base);
    CHECK(hash_value(variants[i]) != hash_value(base));
    map.emplace(variants[i], static_cast<int>(i));
  }
  CHECK(map.size() == variants.size() + 1);
  CHECK(map.at(base) == -1);
  const Spec r0{ReduceSum{0, false}, {t({2, 2}), t({2})}}, r1{ReduceSum{1, false}, {t({2, 2}), t({2})}};
  CHECK_FALSE(r0 == r1);
}
