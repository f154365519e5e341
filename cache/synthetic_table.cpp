// Synthetic table contents (see synthetic_table.h).
#include "cache/synthetic_table.h"

namespace kriek {
namespace {

TensorSpec random_tensor(std::mt19937_64& rng, Shape shape) {
  TensorSpec t;
  t.shape = std::move(shape);
  t.level = static_cast<Level>(rng() % 3);  // GL, L2, L1: no vector sizes to keep consistent
  const int layout = static_cast<int>(rng() % 3);
  t.layout = layout == 0 ? Layout::row_major()
             : layout == 1 ? Layout::col_major()
                           : Layout::blocked(static_cast<std::uint8_t>(t.shape.size() - 1), 16);
  t.aligned = rng() % 4 != 0;
  t.contiguous = rng() % 3 != 0;
  return t;
}

Action random_action(std::mt19937_64& rng) {
  const Layout blk = Layout::blocked(1, 16);
  switch (rng() % 7) {
    case 0: return TileOut{{static_cast<std::int64_t>(1 + rng() % 64), 16}, rng() % 2 == 0};
    case 1: return Split{static_cast<std::int64_t>(1 + rng() % 256)};
    case 2: return Slide{1, 8, Level::L1, blk};
    case 3: return MoveTo{static_cast<std::uint8_t>(rng() % 3), Level::VRF, Layout::row_major(), 16};
    case 4: return ToAccum{};
    case 5: return Bufferize{1, Level::L2, Layout::col_major()};
    default: return Select{kAllKernels[rng() % kAllKernels.size()]};
  }
}

}  // namespace

Spec synthetic_spec(std::mt19937_64& rng, std::uint64_t i) {
  const std::int64_t m = 1 + static_cast<std::int64_t>(i % 1024);
  const std::int64_t k = 1 + static_cast<std::int64_t>((i / 1024) % 1024);
  const std::int64_t n = 1 + static_cast<std::int64_t>(i / (1024 * 1024));
  Spec s;
  switch (rng() % 4) {
    case 0:
      s.op = Matmul{rng() % 2 == 0};
      s.operands = {random_tensor(rng, {m, k}), random_tensor(rng, {k, n}), random_tensor(rng, {m, n})};
      break;
    case 1:
      s.op = Move{};
      s.operands = {random_tensor(rng, {m, k, n}), random_tensor(rng, {m, k, n})};
      break;
    case 2:
      s.op = Binary{BinaryOp::add};
      s.operands = {random_tensor(rng, {m, k, n}), random_tensor(rng, {1, k, n}), random_tensor(rng, {m, k, n})};
      break;
    default:
      s.op = Compose{{Matmul{}, Unary{UnaryOp::relu}}};
      s.operands = {random_tensor(rng, {m, k}), random_tensor(rng, {k, n}), random_tensor(rng, {m, n})};
      break;
  }
  s.serial_only = rng() % 2 == 0;
  return s;
}

Frontier synthetic_frontier(std::mt19937_64& rng) {
  Frontier f;
  const std::size_t n = 1 + rng() % 4;
  Cost cost = rng() % 100000;
  for (std::size_t i = 0; i < n; ++i) {
    FrontierEntry e;
    e.cost = cost += 1 + rng() % 1000;
    e.peak[Level::L1] = static_cast<std::int64_t>(rng() % 49152);
    e.peak[Level::VRF] = static_cast<std::int64_t>(64 * (rng() % 32));
    e.action = random_action(rng);
    for (std::size_t c = rng() % 3; c > 0; --c) e.children.push_back(static_cast<std::uint32_t>(rng() % 4));
    f.entries.push_back(std::move(e));
  }
  return f;
}

std::vector<SpecFrontier> synthetic_contents(std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  std::mt19937_64 rng(seed);
  std::vector<SpecFrontier> out;
  out.reserve(count);
  for (std::uint64_t i = first; i < first + count; ++i) {
    Spec s = synthetic_spec(rng, i);
    out.push_back({std::move(s), synthetic_frontier(rng)});
  }
  return out;
}

}  // namespace kriek
