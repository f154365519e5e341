// Test helpers for impl trees (see builders.h).
#include "support/golden.h"
#include "support/interpret_check.h"
#include "builders.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "impl/interpreter.h"
#include "spec/reference.h"

namespace kriek::test {

Spec matmul(TensorSpec a, TensorSpec b, TensorSpec c, bool accumulate) {
  return Spec{Matmul{accumulate}, {std::move(a), std::move(b), std::move(c)}, false};
}

Spec move_spec(TensorSpec in, TensorSpec out) { return Spec{Move{}, {std::move(in), std::move(out)}, false}; }

OperandMap dims(std::initializer_list<int> axes) {
  OperandMap m;
  for (int a : axes) m.push_back(DimMap{static_cast<std::int8_t>(a), 0});
  return m;
}

Loop matmul_tile(const Spec& s, std::int64_t tm, std::int64_t tn, bool parallel) {
  Loop l;
  l.parallel = parallel;
  l.axes = {{s.output().shape[0], tm}, {s.output().shape[1], tn}};
  l.operands = {dims({0, -1}), dims({-1, 1}), dims({0, 1})};
  return l;
}

Loop matmul_split(const Spec& s, std::int64_t k) {
  Loop l;
  l.kind = LoopKind::split;
  l.axes = {{s.input(0).shape[1], k}};
  l.operands = {dims({-1, 0}), dims({0, -1}), dims({-1, -1})};
  return l;
}

ImplPtr hole(const Spec& s) { return make_hole(s); }

ImplPtr loop_of(const Spec& s, Loop loop, const Build& body) {
  std::vector<ImplPtr> bodies;
  for (auto mask : loop_body_masks(loop.axes)) bodies.push_back(body(loop_body_spec(s, loop, mask)));
  return make_loop(s, std::move(loop), std::move(bodies));
}

ImplPtr move_of(const Spec& s, std::uint8_t op, TensorSpec dest, const Build& body, const Build& load,
                const Build& store) {
  MoveOp m{op, std::move(dest), false, load != nullptr, store != nullptr};
  auto specs = move_child_specs(s, m);
  std::vector<ImplPtr> children{body(specs[0])};
  std::size_t next = 1;
  if (load) children.push_back(load(specs[next++]));
  if (store) children.push_back(store(specs[next]));
  return make_move(s, std::move(m), std::move(children));
}

Build kernel(KernelKind k) {
  return [k](const Spec& s) { return make_kernel(s, k, avx512()); };
}

void check_interpreted(const ImplPtr& impl, unsigned seed) {
  const Verification v = kriek::testing::interpret_check(impl, seed);
  INFO("seed " << seed << ": max error " << v.max_error << " at output element " << v.worst << ", tolerance "
                << v.tolerance);
  REQUIRE(v.ok());
}

void check_golden(const std::string& name, const std::string& text) {
  kriek::testing::check_golden("impl", name, text);
}

const CostModel& avx512_model() {
  static const CostModel m = CostModel::for_target(avx512());
  return m;
}

Cost kernel_cost(KernelKind k, const Spec& s, const CostModel& m) { return evaluate(kernel(k)(s), avx512(), m).cost; }

TensorSpec strided(Shape s, Level l) {
  TensorSpec t = ts(std::move(s), l);
  t.contiguous = false;
  return t;
}

}  // namespace kriek::test
