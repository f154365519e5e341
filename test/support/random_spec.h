// Random Specs of every op kind for property tests, drawn from a seeded engine. The seed is printed by the
// tests and KRIEK_SEED overrides it, so any failure can be replayed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "spec/spec.h"
#include "spec/target.h"

namespace kriek::testing {

/// The seed from KRIEK_SEED, or `fallback`.
inline std::uint64_t test_seed(std::uint64_t fallback) {
  const char* s = std::getenv("KRIEK_SEED");
  return s ? std::strtoull(s, nullptr, 10) : fallback;
}

inline TensorSpec dense(Shape shape, Level level = Level::GL) {
  TensorSpec t;
  t.shape = std::move(shape);
  t.level = level;
  return t;
}

/// Random positive float data.
inline std::vector<float> random_data(std::mt19937_64& rng, std::int64_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

/// A random valid Spec of op kind `kind` (0..7: matmul, conv, move, zero, relu, binary, reducesum, compose: a
/// matmul or conv with an elementwise epilogue)
/// with extents in [1, max_extent], every operand in GL row-major except, for a third of the matmuls and convs,
/// a pre-packed B: the rhs (filters) blocked on its last dimension by 16 columns, the layout its kernel takes
/// (see prepacked).
inline Spec random_spec(std::mt19937_64& rng, int kind, std::int64_t max_extent);

/// `spec` with its second input (a matmul's rhs, a conv's filters) in output-column panels of `block`.
inline Spec prepacked(Spec spec, std::uint32_t block) {
  TensorSpec& b = spec.operands[1];
  if (b.rank() >= 2) b.layout = Layout::blocked(static_cast<std::uint8_t>(b.rank() - 1), block);
  return spec;
}

inline Spec random_spec_row_major(std::mt19937_64& rng, int kind, std::int64_t max_extent) {
  auto ext = [&](std::int64_t lo = 1) {
    return std::uniform_int_distribution<std::int64_t>(lo, std::max(lo, max_extent))(rng);
  };
  auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
  switch (kind) {
    case 0: {
      const auto m = ext(), k = ext(), n = ext();
      return Spec{Matmul{coin()}, {dense({m, k}), dense({k, n}), dense({m, n})}};
    }
    case 1: {
      // Half of them strided and padded (stride 1 or 2, padding below the filter), in the rank-2 or -3 form.
      const auto fh = std::uniform_int_distribution<std::int64_t>(1, 3)(rng);
      const auto fw = std::uniform_int_distribution<std::int64_t>(1, 3)(rng);
      Conv conv{coin()};
      if (coin()) {
        auto upto = [&](std::int64_t hi) { return static_cast<std::uint32_t>(std::uniform_int_distribution<std::int64_t>(0, hi)(rng)); };
        conv.stride = {1 + upto(1), 1 + upto(1)};
        conv.pad = {upto(fh - 1), upto(fw - 1)};
      }
      const auto h = ext(fh), w = ext(fw), f = ext();
      std::vector<Shape> in{{h, w}, {fh, fw, f}};
      if (!coin()) {
        const auto c = std::uniform_int_distribution<std::int64_t>(1, 4)(rng);
        in = {{h, w, c}, {fh, fw, c, f}};
      }
      return Spec{conv, {dense(in[0]), dense(in[1]), dense(infer_output_shape(PrimitiveOp{conv}, in))}};
    }
    case 2: {
      Shape s{ext(), ext()};
      return Spec{Move{}, {dense(s), dense(s)}};
    }
    case 3: return Spec{Zero{}, {dense({ext(), ext()})}};
    case 4: {
      Shape s{ext(), ext()};
      return Spec{Unary{UnaryOp::relu}, {dense(s), dense(s)}};
    }
    case 5: {
      Shape s{ext(), ext()};
      Shape b = s;
      if (coin()) b[std::uniform_int_distribution<std::size_t>(0, 1)(rng)] = 1;
      const BinaryOp op = static_cast<BinaryOp>(std::uniform_int_distribution<int>(0, 3)(rng));
      return Spec{Binary{op}, {dense(s), dense(b), dense(s)}};
    }
    case 6: {
      Shape s{ext(), ext()};
      const auto axis = static_cast<std::uint8_t>(std::uniform_int_distribution<int>(0, 1)(rng));
      Shape o = s;
      o.erase(o.begin() + axis);
      return Spec{ReduceSum{axis, coin()}, {dense(s), dense(o)}};
    }
    default: {
      // matmul then relu, matmul then add of a broadcast row, or a conv (strided and padded half the time) then
      // add of a bias per output channel and relu.
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
        const Spec c = random_spec_row_major(rng, 1, max_extent);
        Conv conv = std::get<Conv>(c.op);
        conv.accumulate = false;
        Shape bias(c.output().rank(), 1);
        bias.back() = c.output().shape.back();
        return Spec{Compose{{conv, Binary{BinaryOp::add}, Unary{UnaryOp::relu}}},
                    {c.input(0), c.input(1), dense(bias), c.output()}};
      }
      const auto m = ext(), k = ext(), n = ext();
      if (coin()) {
        return Spec{Compose{{Matmul{}, Unary{UnaryOp::relu}}}, {dense({m, k}), dense({k, n}), dense({m, n})}};
      }
      return Spec{Compose{{Matmul{}, Binary{BinaryOp::add}}},
                  {dense({m, k}), dense({k, n}), dense({1, n}), dense({m, n})}};
    }
  }
}

inline Spec random_spec(std::mt19937_64& rng, int kind, std::int64_t max_extent) {
  Spec spec = random_spec_row_major(rng, kind, max_extent);
  // Panels of 4, 8 or 16 columns: narrower than a vector, one vector (AVX2) or wider.
  if ((kind == 0 || kind == 1) && std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
    spec = prepacked(std::move(spec), std::uint32_t{4} << std::uniform_int_distribution<int>(0, 2)(rng));
  }
  return spec;
}

inline constexpr int kOpKinds = 8;
static_assert(kOpKinds == std::variant_size_v<Op>, "random_spec must draw every op kind");

}  // namespace kriek::testing
