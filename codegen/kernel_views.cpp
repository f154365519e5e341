// Matrix views, the register pairing of vec_sum_rows and the rows of vec_sum_runs (see kernel_views.h).
#include "codegen/kernel_views.h"

#include <algorithm>
#include <array>

#include "impl/tiling.h"
#include "spec/error.h"

namespace kriek::codegen {

Coord matrix_at(const CView& v, std::int64_t i, std::int64_t j) {
  Coord at = zeros(v.rank());
  at[v.rank() - 2] = i;
  at[v.rank() - 1] = j;
  return at;
}

Shape matrix_row(const CView& v, std::int64_t cols) {
  Shape s(v.rank(), 1);
  s.back() = cols;
  return s;
}

DotRuns dot_runs(const CView& a, const CView& b, const CView& out) {
  const std::size_t r = a.rank();
  const std::int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
  DotRuns d;
  for (std::int64_t i = 0; i < m; ++i) d.rows.push_back(a.sub(matrix_at(a, i, 0), matrix_row(a, k)));
  Shape column(b.rank(), 1);
  column[r - 2] = k;
  for (std::int64_t j = 0; j < n; ++j) d.cols.push_back(b.sub(matrix_at(b, 0, j), column));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) d.outs.push_back(out.sub(matrix_at(out, i, j), Shape(out.rank(), 1)));
  }
  return d;
}

void for_each_row_register(std::size_t axis, const CView& in, const CView& out, std::int64_t width, const Affine& step,
                           const std::function<void(const CView& reg, const CView& run)>& add) {
  // Whole registers of a row-major buffer (a register may span rows), or register panels (a buffer blocked on its
  // last dimension): each row in registers of `width`, the last partial (`reg` then holds the lanes it covers).
  const bool panels = out.layout.kind == Layout::Kind::blocked && out.layout.dim + 1u == out.buffer.size();
  Shape box(out.rank(), 1);
  if (!panels) {
    const auto whole = register_box(out.shape, static_cast<std::uint32_t>(width));
    KRIEK_ASSERT(whole.has_value(), "vec_sum_rows: ", out.base, " is neither whole registers nor register panels");
    box = *whole;
  }
  std::vector<std::int64_t> at(out.rank(), 0);
  while (true) {
    Coord o(at.begin(), at.end()), i = o;
    i.insert(i.begin() + static_cast<std::ptrdiff_t>(axis), step);
    Shape reg = box;
    if (panels) reg.back() = std::min(width, out.shape.back() - at.back());
    Shape run = reg;
    run.insert(run.begin() + static_cast<std::ptrdiff_t>(axis), 1);
    add(out.sub(o, reg), in.sub(i, run));
    std::size_t d = out.rank();
    while (d > 0 && (at[d - 1] += reg[d - 1]) == out.shape[d - 1]) at[--d] = 0;
    if (d == 0) return;
  }
}

std::int64_t row_register_count(std::size_t axis, const CView& in, const CView& out, std::int64_t width) {
  std::int64_t n = 0;
  for_each_row_register(axis, in, out, width, Affine(0), [&](const CView&, const CView&) { ++n; });
  return n;
}

std::vector<CView> innermost_rows(const CView& in) {
  KRIEK_ASSERT(in.rank() >= 1, "the rows of a rank-0 view ", in.base);
  const std::size_t last = in.rank() - 1;
  Shape row(in.rank(), 1);
  row[last] = in.shape[last];
  std::vector<CView> rows;
  std::vector<std::int64_t> at(in.rank(), 0);
  while (true) {
    rows.push_back(in.sub(Coord(at.begin(), at.end()), row));
    std::size_t d = last;
    while (d > 0 && ++at[d - 1] == in.shape[d - 1]) at[--d] = 0;
    if (d == 0) return rows;
  }
}

std::optional<std::vector<std::int64_t>> rows_apart(const std::vector<CView>& rows) {
  if (rows.empty()) return std::vector<std::int64_t>{};
  const std::optional<Affine> first = affine_offset(rows.front(), zeros(rows.front().rank()));
  std::vector<std::int64_t> apart;
  for (const CView& row : rows) {
    const std::optional<Affine> at = affine_offset(row, zeros(row.rank()));
    if (!first || !at || !(*at - *first).is_constant()) return std::nullopt;
    apart.push_back((*at - *first).constant());
  }
  return apart;
}

bool sum_runs_peel(const std::vector<CView>& rows, std::int64_t k, std::int64_t width) {
  if (width != 16 || k < kPeelMinRegisters * width || rows.empty()) return false;
  const auto apart = rows_apart(rows);
  return !apart || std::any_of(apart->begin(), apart->end(), [&](std::int64_t d) { return d % width != 0; });
}

std::int64_t rows_per_l1_set(const std::vector<CView>& rows) {
  const auto apart = rows_apart(rows);
  if (!apart) return 1;
  constexpr std::int64_t kLine = 64;
  std::array<std::int64_t, kL1WayBytes / kLine> in_set{};  // rows by the line of the 4 KiB page offset they start at
  std::int64_t most = 1;
  for (const std::int64_t d : *apart) {
    const std::int64_t bytes = d * static_cast<std::int64_t>(sizeof(float));
    const std::int64_t offset = (bytes % kL1WayBytes + kL1WayBytes) % kL1WayBytes;  // rows may lie before the first
    most = std::max(most, ++in_set[static_cast<std::size_t>(offset / kLine)]);
  }
  return most;
}

std::int64_t sum_runs_chains(std::int64_t k, std::int64_t width, Level from, std::int64_t rows_per_set) {
  if (width != 16) return 1;
  if (from == Level::L2) return k / width >= 16 ? 8 : 1;
  if (from != Level::GL) return 1;
  std::int64_t chains = 1;
  while ((rows_per_set + chains - 1) / chains > kL1FewestWays && 2 * chains <= k / width) chains *= 2;
  return chains;
}

Level sum_runs_source(Level level, const CView& in) {
  const std::int64_t bytes = in.layout.buffer_elements(in.buffer) * static_cast<std::int64_t>(sizeof(float));
  return level == Level::GL && in.storage == Storage::memory && bytes <= kL2ResidentBytes ? Level::L2 : level;
}

}  // namespace kriek::codegen
