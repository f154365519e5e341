// The cost formulas of every node kind (impl/kernel_cost.cpp: of each kernel call), and whole-tree evaluation.
#include "impl/cost.h"

#include <algorithm>

#include "impl/kernel_cost.h"
#include "impl/team.h"
#include "impl/tiling.h"
#include "spec/error.h"
#include "spec/overloaded.h"
#include "spec/stable_hash.h"

namespace kriek {
namespace {

constexpr std::int64_t kLine = 64;

/// True when `op` is a matmul or a conv, or a pipeline with one: a Spec with a rhs it reads row by row along a
/// reduction that its Impls loop over.
bool contracts(const Op& op) {
  const auto one = [](const PrimitiveOp& p) {
    return std::holds_alternative<Matmul>(p) || std::holds_alternative<Conv>(p);
  };
  if (const auto* c = std::get_if<Compose>(&op)) return std::ranges::any_of(c->stages, one);
  return std::holds_alternative<Matmul>(op) || std::holds_alternative<Conv>(op);
}

/// Bytes of straight-line code one run of `body` takes when a loop unrolls it (about 8 per instruction): the kernels
/// of a reduction, an elementwise op or a copy walk every register of their operands (a load or store each) with
/// an op per register of the largest. A matmul's or conv's body loops over its reduction (a rolled split), so its
/// code does not grow with the body's size: counted as none.
std::int64_t unrolled_code_bytes(const Spec& body, const Target& target) {
  constexpr std::int64_t kBytesPerInstruction = 8;
  if (contracts(body.op)) return 0;
  std::int64_t all = 0, largest = 0;
  for (const TensorSpec& t : body.operands) {
    const std::int64_t vs = vector_width(target, t.dtype);
    const std::int64_t registers = (t.elements() + vs - 1) / vs;
    all += registers;
    largest = std::max(largest, registers);
  }
  return (all + largest) * kBytesPerInstruction;
}

/// What one run of `loop` pays for code beyond the instruction cache: the loop unrolled over register-held
/// operands (`unrolled`: unrolled_axes) repeats its body's straight-line code once per unrolled iteration, and the
/// part beyond CostModel::code_cache_bytes comes from L2, a line at a time, on every run.
Cost code_fetch_cost(const Loop& loop, const AxisFlags& unrolled, const Spec& body, const Target& target,
                     const CostModel& m) {
  std::int64_t copies = 1;
  for (std::size_t a = 0; a < loop.axes.size(); ++a) {
    if (unrolled[a]) copies *= loop.axes[a].trips();
  }
  if (copies == 1) return 0;
  const std::int64_t bytes = copies * unrolled_code_bytes(body, target);
  const auto budget = static_cast<std::int64_t>(m.code_cache_bytes);
  if (bytes <= budget) return 0;
  return static_cast<Cost>((bytes - budget + kLine - 1) / kLine) * m.line_from[static_cast<std::size_t>(Level::L2)];
}

/// True when a tile of shape `tile` of `whole` is cut along the outermost dimension that has more than one element.
bool cuts_outermost(const Shape& whole, const Shape& tile) {
  for (std::size_t d = 0; d < whole.size(); ++d) {
    if (whole[d] > 1) return tile[d] < whole[d];
  }
  return false;
}

/// What each of `ways` cores pays to read all of `t` when the others wrote (ways - 1) / ways of its lines.
Cost cross_core(const TensorSpec& t, Cost ways, const CostModel& m) {
  return static_cast<Cost>(lines_touched(t)) * (ways - 1) / ways * m.cross_core_line;
}

/// True when one run of `body` keeps the FMA ports busy for at least four loop iterations' time, its inputs in L1
/// or registers, or (CostModel::streamed_rows_hide_iteration) its rhs a run of two lines or more of one sequential
/// stream from L2 (the loop's `loop_spec` rhs contiguous): the loop's index update and branch run on other ports.
bool hides_iteration(const Spec& loop_spec, const Spec& body, const Target& target, const CostModel& m) {
  const bool one_stream = m.streamed_rows_hide_iteration != 0 && contracts(body.op) && loop_spec.input(1).contiguous;
  for (std::size_t i = 0; i < body.input_count(); ++i) {
    const TensorSpec& in = body.input(i);
    const bool streamed = one_stream && i == 1 && in.level == Level::L2 && in.contiguous && in.bytes() >= 2 * kLine;
    if (in.level != Level::L1 && !is_register_level(in.level) && !streamed) return false;
  }
  const std::int64_t lanes = vector_width(target, body.output().dtype);
  const double fmas = flop_count(body, lanes) / static_cast<double>(2 * lanes);
  return fmas * static_cast<double>(m.vector_fma) >= 4.0 * static_cast<double>(m.loop_iteration);
}

NodeCost loop_cost(const Spec& spec, std::span<const Spec> children, const Loop& loop, const Target& target,
                   const CostModel& m) {
  NodeCost nc;
  Cost trips = 1;
  for (const LoopAxis& a : loop.axes) trips *= static_cast<Cost>(a.trips());
  // A parallel loop's team trips, boundary trips included, are cut into one range per core: it takes as long as
  // its first range, the longest (team_share_runs). 257 rows in two tiles of 129 (the second 128) run on both
  // cores at once, where a boundary after the full tiles ran on one core alone.
  const AxisFlags unrolled = unrolled_axes(spec, loop);
  const TeamAxes team = team_axes(loop, unrolled);
  const Cost ways = team.empty() ? 1 : std::min<Cost>(m.cores, static_cast<Cost>(team_trips(loop, team)));
  for (std::uint32_t mask : loop.body_masks) {
    nc.weights.push_back(static_cast<Cost>(team_share_runs(loop, team, static_cast<std::int64_t>(ways), mask)));
  }
  // Unrolled axes (unrolled_axes) cost no iterations; the others pay loop_iteration per iteration of their nest.
  Cost iterations = 1;
  bool any_rolled = false;
  for (std::size_t a = 0; a < loop.axes.size(); ++a) {
    if (unrolled[a]) continue;
    iterations *= static_cast<Cost>(loop.axes[a].trips());
    any_rolled = true;
  }
  // A body of single elements (a scalar copy or operation) is a few instructions, and the compilers unroll (or
  // vectorize) such innermost loops: a quarter of an iteration each. A transposing copy of 1600x3 floats, a
  // loop of one-element copies, takes 0.15 us, 0.12 cycles per element.
  const auto one_element = [](const TensorSpec& t) { return t.elements() == 1; };
  const bool scalar_body = !children.empty() && std::ranges::all_of(children.front().operands, one_element);
  const bool hidden = !children.empty() && hides_iteration(spec, children.front(), target, m);
  const Cost per_iteration = scalar_body || hidden ? m.loop_iteration / 4 : m.loop_iteration;
  nc.base = (any_rolled ? (iterations + ways - 1) / ways * per_iteration : 0) +
            (ways > 1 ? m.parallel_launch : 0);
  if (!children.empty()) nc.base += code_fetch_cost(loop, unrolled, children.front(), target, m);
  // A buffer the team wrote (TensorSpec::shared) is spread over the cores' caches the way its writers cut it, in
  // contiguous ranges of its outermost dimension (a parallel loop's static ranges of row-major tiles). A loop that
  // cuts it the same way reads mostly what its own core wrote; one that reads all of it, or cuts it only along
  // inner dimensions, reads (cores - 1) / cores of it from the other cores. conv1 on 2 threads, its output channels
  // split: each core reads the whole padded image, 778 us; its output rows split, 610 us. conv
  // 1x28x28x512 1x1x512x128 packed: its filters copied into L2 rows by both cores, then read whole by both, 298 us;
  // read where they are through L2 (the caller's, unchanged between calls, stay in each core's cache), 262 us.
  if (loop.parallel && ways > 1 && !children.empty()) {
    for (std::size_t i = 0; i < spec.input_count(); ++i) {
      const TensorSpec& t = spec.operands[i];
      if (t.shared && !cuts_outermost(t.shape, children.front().operands[i].shape)) nc.base += cross_core(t, ways, m);
    }
  }
  if (loop.window) {
    // The window buffer: loaded whole once, then only its new part each step; the overlap shifts in place. (A
    // padded image's border in the window is zeroed rather than loaded, priced alike.)
    KRIEK_ASSERT(!children.empty(), "a slide loop has a body");
    const std::size_t w = loop.window->operand;
    const TensorSpec& src = spec.operands[w];
    const TensorSpec& win = children.front().operands[w];
    const std::size_t dim = window_dim(loop);
    const std::int64_t rows_per_step = loop.axes.front().tile * loop.operands[w][dim].step;
    const std::int64_t window_rows = win.shape[dim] > 0 ? win.shape[dim] : 1;
    const Cost first = static_cast<Cost>(lines_touched(win));
    const Cost step_lines = first * static_cast<Cost>(std::min(rows_per_step, window_rows)) /
                            static_cast<Cost>(window_rows);
    const Cost per_line = m.line_from[static_cast<std::size_t>(src.level)] + m.vector_load + m.vector_store;
    nc.base += first * per_line + (trips - 1) * (step_lines * per_line + (first - step_lines) * m.vector_store);
    nc.own[loop.window->level] += win.bytes();
  }
  return nc;
}

NodeCost move_cost(const Spec& spec, std::size_t children, const MoveOp& move, const CostModel& m) {
  NodeCost nc;
  nc.weights.assign(children, 1);
  const TensorSpec& src = spec.operands[move.operand];
  const bool output = static_cast<std::size_t>(move.operand) + 1 == spec.operands.size();
  if (move.alias) {
    const Cost lines = static_cast<Cost>(lines_touched(src));
    Cost per_line = m.line_from[static_cast<std::size_t>(src.level)];
    if (!src.contiguous) per_line += per_line * m.strided_percent / 100;
    // The output's lines also go back: each is read (for ownership, or to accumulate) and written back to the
    // level it came from (CostModel::output_return_percent). Priced one way, matmul 384x768x3072 (one core) split
    // K in 128 and reloaded its 4.7 MB output six times from L3: 1.36x the time of keeping the whole K per output
    // tile, priced 2.1% cheaper.
    if (output) per_line += per_line * m.output_return_percent / 100;
    nc.base = lines * per_line;
    nc.own[move.dest.level] = lines_touched(src) * kLine;
  } else {
    // One scalar in RF is a local the compiler keeps in a register: nothing to set up.
    nc.base = move.dest.level == Level::RF ? 0 : m.buffer_setup;
    nc.own[move.dest.level] = move.dest.bytes();
    // An output tile read back into registers from L1 (an accumulator reloaded per block of the reduction) takes a
    // load slot per register, which no kernel counts (vec_load from L1 is free: bcast_fma counts the rhs rows'
    // loads). Unpriced, conv res4_3x3 reloaded its 14x32 tile per 32 channels of filters held in L1 and took
    // 1.04-1.18x the time of streaming them from L2 into a tile kept over all 2304.
    if (output && move.load && move.dest.level == Level::VRF && src.level == Level::L1 && move.dest.vector_size > 0) {
      nc.base += static_cast<Cost>(registers_of(move.dest)) * m.vector_load;
    }
  }
  return nc;
}

}  // namespace

CostModel CostModel::for_target(const Target& target) {
  CostModel m;
  m.cores = static_cast<std::uint32_t>(target.cores);
  if (target.isa == Isa::scalar) {
    m.vector_fma = m.vector_load = m.vector_broadcast = m.vector_broadcast_operand = m.vector_store = m.vector_op = 0;
  }
  if (target.profile) m.apply_profile(*target.profile, target);
  return m;
}

std::uint64_t CostModel::fingerprint() const {
  StableHasher h;
  h.add(version);
  for (Cost c : line_from) h.add(static_cast<std::uint64_t>(c));
  for (Cost c : element_access) h.add(static_cast<std::uint64_t>(c));
  for (Cost c : {strided_percent, loop_iteration, parallel_launch, Cost(cores), cross_core_line, vector_fma,
                 fma_latency, vector_load, vector_broadcast, vector_broadcast_operand, vector_store, vector_op,
                 scalar_op, buffer_setup, output_return_percent, stream_overlap_eighths, code_cache_bytes,
                 streamed_rows_hide_iteration}) {
    h.add(static_cast<std::uint64_t>(c));
  }
  return h.value();
}

std::int64_t lines_touched(const TensorSpec& t) {
  const std::int64_t bytes = static_cast<std::int64_t>(dtype_bytes(t.dtype));
  if (t.contiguous) return (t.bytes() + kLine - 1) / kLine + (t.aligned ? 0 : 1);
  return t.runs() * ((t.run_elements() * bytes + kLine - 1) / kLine + (t.aligned ? 0 : 1));
}

namespace {

/// Children that each run once, one after another, and nothing of the node's own.
NodeCost in_sequence(std::size_t children) {
  NodeCost nc;
  nc.weights.assign(children, 1);
  return nc;
}

/// The same around a buffer of the node's own (a pipeline's intermediate, a padded image).
NodeCost with_buffer(std::size_t children, const TensorSpec& buffer, const CostModel& m) {
  NodeCost nc = in_sequence(children);
  nc.base = m.buffer_setup;
  nc.own[buffer.level] = buffer.bytes();
  return nc;
}

}  // namespace

NodeCost node_cost(const Spec& spec, const NodeKind& kind, std::span<const Spec> children, const Target& target,
                   const CostModel& m) {
  return std::visit(overloaded{[&](const Loop& loop) { return loop_cost(spec, children, loop, target, m); },
                               [&](const MoveOp& move) { return move_cost(spec, children.size(), move, m); },
                               [&](const Block&) { return in_sequence(children.size()); },
                               [&](const Pipeline& p) { return with_buffer(children.size(), p.buffer, m); },
                               // Views only: the matmul's cost.
                               [&](const Reshape&) { return in_sequence(children.size()); },
                               [&](const PadOp& p) { return with_buffer(children.size(), p.buffer, m); },
                               // Views only: the taps' costs.
                               [&](const TapSplit&) { return in_sequence(children.size()); },
                               [&](const KernelCall& k) {
                                 NodeCost nc;
                                 nc.base = kernel_cost(k.kernel, spec, target, m);
                                 nc.own[Level::VRF] = scratch_registers(k.kernel, spec, target) * target.vector_bytes;
                                 return nc;
                               },
                               [&](const Hole&) { return NodeCost{}; }},
                    kind);
}

NodeCost node_cost(const ImplNode& node, const Target& target, const CostModel& m) {
  std::vector<Spec> children;
  children.reserve(node.children.size());
  for (const ImplPtr& c : node.children) children.push_back(c->spec);
  return node_cost(node.spec, node.kind, children, target, m);
}

namespace {

/// Walks `node` in hole order with `around` the own memory of its ancestors; true once hole `index` is found (then
/// `around` holds the memory around it).
bool find_hole(const ImplPtr& node, std::size_t& index, MemoryUse& around, const Target& target,
               const CostModel& m) {
  if (node->is_hole()) return index-- == 0;
  const MemoryUse outer = around;
  around = around.plus(node_cost(*node, target, m).own);
  for (std::size_t i : child_print_order(*node)) {
    if (find_hole(node->children[i], index, around, target, m)) return true;
  }
  around = outer;
  return false;
}

}  // namespace

MemoryUse memory_around_hole(const ImplPtr& root, std::size_t index, const Target& target, const CostModel& model) {
  MemoryUse around;
  std::size_t left = index;
  const bool found = find_hole(root, left, around, target, model);
  KRIEK_ASSERT(found, "no hole ", index, " in the tree");
  return around;
}

ImplCost evaluate(const ImplPtr& impl, const Target& target, const CostModel& m) {
  const NodeCost nc = node_cost(*impl, target, m);
  ImplCost result{nc.base, {}};
  MemoryUse children_peak;
  for (std::size_t i = 0; i < impl->children.size(); ++i) {
    const ImplCost c = evaluate(impl->children[i], target, m);
    result.cost += nc.weights[i] * c.cost;
    children_peak = children_peak.max(c.peak);
  }
  result.peak = nc.own.plus(children_peak);
  return result;
}

}  // namespace kriek
