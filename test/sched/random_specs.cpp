// The random Spec generator of the sched tests (see random_spec in helpers.h).
#include <array>

#include "helpers.h"

namespace kriek::sched_test {
namespace {

class Gen {
 public:
  explicit Gen(std::mt19937_64& rng) : rng_(rng) {}

  std::int64_t ext(std::int64_t lo = 1, std::int64_t hi = 12) {
    return std::uniform_int_distribution<std::int64_t>(lo, std::max(lo, hi))(rng_);
  }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool coin(int one_in = 2) { return pick(one_in) == 0; }

  /// An operand of `shape` at a random memory level and layout, sometimes strided or unaligned.
  TensorSpec operand(Shape shape) {
    TensorSpec t = ts(std::move(shape));
    t.level = std::array{Level::GL, Level::GL, Level::L2, Level::L1}[static_cast<std::size_t>(pick(4))];
    if (t.rank() >= 2) {
      switch (pick(4)) {
        case 0: t.layout = Layout::col_major(); break;
        case 1:
          t.layout = Layout::blocked(static_cast<std::uint8_t>(pick(static_cast<int>(t.rank()))),
                                     static_cast<std::uint32_t>(ext(1, 4)));
          break;
        default: break;
      }
    }
    t.contiguous = !coin(5);
    t.aligned = !coin(5);
    return t;
  }

  Spec of(Op op, std::vector<Shape> inputs) {
    Spec s{op, {}, coin(4)};
    for (auto& in : inputs) s.operands.push_back(operand(in));
    s.operands.push_back(operand(infer_output_shape(op, inputs)));
    return s;
  }

  PrimitiveOp binary_op() { return Binary{static_cast<BinaryOp>(pick(4))}; }

  Spec conv_spec(bool acc) {
    // 1x1 windows often (to_matmul takes them), else up to 3x3.
    const auto fh = coin() ? 1 : ext(1, 3), fw = coin() ? 1 : ext(1, 3);
    Conv conv{acc};
    if (coin()) {  // strided and padded: stride 1 or 2, padding below the filter
      conv.stride = {static_cast<std::uint32_t>(ext(1, 2)), static_cast<std::uint32_t>(ext(1, 2))};
      conv.pad = {static_cast<std::uint32_t>(ext(0, fh - 1)), static_cast<std::uint32_t>(ext(0, fw - 1))};
    }
    // Sometimes one output row (as many image rows as filter rows).
    const auto h = coin(3) ? fh : ext(fh);
    switch (pick(3)) {
      case 0: return of(conv, {{h, ext(fw)}, {fh, fw, ext(1, 4)}});
      case 1: {
        const auto c = ext(1, 3);
        return of(conv, {{h, ext(fw), c}, {fh, fw, c, ext(1, 4)}});
      }
      default: {
        const auto c = ext(1, 3);
        return of(conv, {{ext(1, 2), h, ext(fw), c}, {fh, fw, c, ext(1, 3)}});
      }
    }
  }

  Spec compose_spec() {
    const auto m = ext(), k = ext(), n = ext();
    switch (pick(5)) {
      case 0: return of(Compose{{Matmul{}, Unary{}}}, {{m, k}, {k, n}});
      case 1: return of(Compose{{Matmul{}, binary_op()}}, {{m, k}, {k, n}, {1, n}});
      case 2: {
        const auto h = ext(5, 10), w = ext(5, 10);
        return of(Compose{{Conv{}, ReduceSum{2, false}, Conv{}}}, {{h, w}, {3, 3, 2}, {2, 2, ext(1, 3)}});
      }
      case 3: return of(Compose{{Conv{}, Conv{}}}, {{ext(4, 9), ext(4, 9)}, {2, 3, 2}, {2, 2, 2, ext(1, 3)}});
      default: return of(Compose{{Unary{}, binary_op(), ReduceSum{1, false}}}, {{m, n}, {m, n}});
    }
  }

  Spec spec(int kind) {
    switch (kind) {
      case 0: {
        const auto m = ext(), k = ext(), n = ext();
        if (coin(3)) {
          const auto b = ext(1, 3);
          return of(Matmul{coin()}, {{b, m, k}, {b, k, n}});
        }
        return of(Matmul{coin()}, {{m, k}, {k, n}});
      }
      case 1: return conv_spec(coin());
      case 2: {
        Shape s{ext(), ext()};
        Spec out{Move{}, {operand(s), operand(s)}, coin(4)};
        return out;
      }
      case 3: {
        Spec out{Zero{}, {operand({ext(), ext()})}, false};
        return out;
      }
      case 4: return of(Unary{}, {{ext(), ext()}});
      case 5: {
        Shape a{ext(), ext()};
        Shape b = a;
        if (coin()) b[static_cast<std::size_t>(pick(2))] = 1;
        if (coin(3)) std::swap(a, b);
        return of(to_op(binary_op()), {a, b});
      }
      case 6: {
        Shape in;
        const int rank = 1 + pick(3);
        for (int d = 0; d < rank; ++d) in.push_back(ext());
        return of(ReduceSum{static_cast<std::uint8_t>(pick(rank)), coin()}, {in});
      }
      default: return compose_spec();
    }
  }

 private:
  std::mt19937_64& rng_;
};

}  // namespace

Spec random_spec(std::mt19937_64& rng, int kind) { return Gen(rng).spec(kind); }

}  // namespace kriek::sched_test
