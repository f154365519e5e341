// Plans of streamed tiles' prefetches (see prefetch.h): the next tile's lines as nested progressions, and their
// spacing over the body's FMA kernel calls.
#include "codegen/prefetch.h"

#include <algorithm>
#include <bit>

#include "impl/kernel.h"
#include "spec/error.h"
#include "spec/overloaded.h"

namespace kriek::codegen {
namespace {

/// Elements of a 64-byte line (f32, the only dtype the generators take).
constexpr std::int64_t kLineElements = 16;
/// Tiles of more elements than this are not planned (1 MiB of floats: an L2 tile of half a 2 MiB L2).
constexpr std::int64_t kMaxElements = std::int64_t{1} << 18;
/// At most this many levels of progressions (rank + 1 for a tile of panels).
constexpr std::size_t kMaxDims = 5;

/// The element offsets of every element of `v` relative to its first, or nullopt when one is not a constant
/// (a blocked layout's panel boundary that moves with a loop variable).
std::optional<std::vector<std::int64_t>> relative_offsets(const CView& v) {
  const auto first = affine_offset(v, zeros(v.rank()));
  if (!first) return std::nullopt;
  std::vector<std::int64_t> out;
  Coord index = zeros(v.rank());
  std::vector<std::int64_t> at(v.rank(), 0);
  for (;;) {
    for (std::size_t d = 0; d < v.rank(); ++d) index[d] = Affine(at[d]);
    const auto off = affine_offset(v, index);
    if (!off) return std::nullopt;
    const Affine rel = *off - *first;
    if (!rel.is_constant()) return std::nullopt;
    out.push_back(rel.constant());
    std::size_t d = v.rank();
    while (d > 0 && ++at[d - 1] == v.shape[d - 1]) at[--d] = 0;
    if (d == 0) break;
  }
  return out;
}

/// `view` one iteration on along the innermost of `vars` that moves it (a loop variable: one term and a constant),
/// or nullopt when none does.
std::optional<CView> next_tile(const CView& view, const std::vector<Affine>& vars) {
  for (auto v = vars.rbegin(); v != vars.rend(); ++v) {
    KRIEK_ASSERT(v->terms().size() == 1, "a loop variable ", v->text(), " of one term");
    const std::string& name = v->terms().front().first;
    CView next = view;
    bool moved = false;
    for (Affine& o : next.origin) {
      if (const std::int64_t c = o.coefficient(name); c != 0) o = o + Affine(c), moved = true;
    }
    if (moved) return next;
  }
  return std::nullopt;
}

/// `starts` (sorted, starting at 0) as nested progressions, outermost first, or nullopt when they are not.
std::optional<std::vector<PrefetchDim>> progressions(std::vector<std::int64_t> starts) {
  std::vector<PrefetchDim> dims;
  std::int64_t inner = 1;
  while (starts.size() > 1) {
    const std::int64_t stride = starts[1] - starts[0];
    std::size_t e = 1;
    while (e < starts.size() && starts[e] - starts[e - 1] == stride) ++e;
    if (starts.size() % e != 0) return std::nullopt;
    std::vector<std::int64_t> blocks;
    for (std::size_t b = 0; b < starts.size(); b += e) {
      for (std::size_t i = 0; i < e; ++i) {
        if (starts[b + i] - starts[b] != static_cast<std::int64_t>(i) * stride) return std::nullopt;
      }
      blocks.push_back(starts[b]);
    }
    dims.insert(dims.begin(), PrefetchDim{static_cast<std::int64_t>(e), inner, stride});
    inner *= static_cast<std::int64_t>(e);
    starts = std::move(blocks);
    if (dims.size() > kMaxDims) return std::nullopt;
  }
  return dims;
}

}  // namespace

std::optional<PrefetchPlan> prefetch_plan(const CView& view, const std::vector<Affine>& vars, std::int64_t calls) {
  if (view.storage != Storage::memory || calls <= 0) return std::nullopt;
  std::int64_t elements = 1;
  for (std::int64_t e : view.shape) elements *= e;
  if (elements > kMaxElements) return std::nullopt;
  const std::optional<CView> next = next_tile(view, vars);
  if (!next) return std::nullopt;
  const auto offset = affine_offset(*next, zeros(next->rank()));
  const auto rel = relative_offsets(*next);
  if (!offset || !rel) return std::nullopt;
  // Each run of consecutive elements, a line every 16 elements from its start (a run that starts inside a line
  // and ends in another leaves its last line to the hardware's next-line prefetch).
  std::vector<std::int64_t> sorted = *rel;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const std::int64_t low = sorted.front();
  std::vector<std::int64_t> starts;
  for (std::size_t r = 0; r < sorted.size();) {
    std::size_t end = r + 1;
    while (end < sorted.size() && sorted[end] == sorted[end - 1] + 1) ++end;
    for (std::int64_t at = sorted[r]; at <= sorted[end - 1]; at += kLineElements) starts.push_back(at - low);
    r = end;
  }
  auto dims = progressions(starts);
  if (!dims) return std::nullopt;
  PrefetchPlan plan;
  plan.base = next->base;
  plan.offset = *offset + Affine(low);
  plan.dims = std::move(*dims);
  plan.lines = static_cast<std::int64_t>(starts.size());
  if (calls >= plan.lines) {
    plan.spacing = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(calls / plan.lines)));
  } else {
    plan.per_step = (plan.lines + calls - 1) / calls;
  }
  return plan;
}

std::optional<PrefetchPlan> streamed_tile(const ImplNode& n, const MoveOp& m, const CView& view,
                                          const std::vector<Affine>& vars, const Target& target) {
  const TensorSpec& source = n.spec.operands[m.operand];
  // The rhs (a conv's filters): the operand the FMA kernels read a register of per row of the tile.
  const bool rhs =
      m.operand == 1 && (std::holds_alternative<Matmul>(n.spec.op) || std::holds_alternative<Conv>(n.spec.op));
  if (!m.alias || !rhs || source.level != Level::GL || (m.dest.level != Level::L1 && m.dest.level != Level::L2) ||
      !target.has_level(Level::L2)) {
    return std::nullopt;
  }
  std::int64_t bytes = static_cast<std::int64_t>(dtype_bytes(source.dtype));
  for (std::int64_t e : view.buffer) bytes *= e;
  if (bytes <= target.level(Level::L2).capacity) return std::nullopt;
  auto plan = prefetch_plan(view, vars, prefetch_carriers(*n.children[0]));
  if (plan) plan->into_l1 = m.dest.level == Level::L1;
  return plan;
}

std::int64_t prefetch_carriers(const ImplNode& n) {
  std::int64_t sum = 0;
  std::visit(overloaded{[&](const Loop& l) {
                          for (std::size_t b = 0; b < l.body_masks.size(); ++b) {
                            sum += body_runs(l, l.body_masks[b]) * prefetch_carriers(*n.children[b]);
                          }
                        },
                        [&](const KernelCall& k) { sum = carries_prefetches(k.kernel) ? 1 : 0; },
                        [&](const auto&) {
                          for (const ImplPtr& c : n.children) sum += prefetch_carriers(*c);
                        }},
             n.kind);
  return sum;
}

std::int64_t prefetch_line_offset(const PrefetchPlan& plan, std::int64_t j) {
  std::int64_t off = 0;
  for (const PrefetchDim& d : plan.dims) off += (j / d.inner) % d.extent * d.stride;
  return off;
}

}  // namespace kriek::codegen
