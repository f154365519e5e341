// tile_out: preconditions and the tile loop. How operands follow the output's tiles, per op kind: Matmul
// lhs[m,.] rhs[.,n] (a batch dimension follows on all three); Conv image n, h (halo FH-1), w (halo FW-1), channels
// whole, filters f; Move, Unary like the output; Binary like the output except broadcast (extent-1) dimensions,
// which stay whole; ReduceSum the input's dimensions other than the axis; Compose each stage's input maps from
// its output's map, last stage first, so convolution halos add up.
#include "sched/tile_out.h"

#include <algorithm>
#include <vector>

#include "sched/support.h"
#include "spec/conv_geometry.h"
#include "spec/overloaded.h"

namespace kriek {
namespace {

using namespace sched_detail;

constexpr DimMap kWhole{-1, 0, 1};

/// The image dimension a conv reads for an output dimension that follows `m`, with `stride` and a filter extent
/// of `filter`: a tile of E outputs reads (E - 1) * stride + filter inputs, so steps multiply and the halo grows
/// (DimMap::extent composes), or the whole extent when `m` follows no axis.
DimMap windowed(const DimMap& m, std::int64_t stride, std::int64_t filter) {
  if (m.axis < 0) return kWhole;
  return DimMap{m.axis, m.halo * stride + filter - 1, m.step * stride};
}

/// Input maps of one primitive op with input shapes `in` and output shape `out` whose map is `o`.
PerOperand<OperandMap> input_maps(const PrimitiveOp& op, std::span<const Shape> in, const Shape& out,
                                   const OperandMap& o) {
  return std::visit(
      overloaded{
          [&](const Matmul&) -> PerOperand<OperandMap> {
            const std::size_t r = out.size();
            OperandMap a(r, kWhole), b(r, kWhole);
            if (r == 3) a[0] = b[0] = o[0];
            a[r - 2] = o[r - 2];
            b[r - 1] = o[r - 1];
            return {a, b};
          },
          [&](const Conv& conv) -> PerOperand<OperandMap> {
            const ConvGeometry g = conv_geometry(conv, in[0], in[1]);
            const std::size_t h = g.row_dim;  // image and output dimension of the rows
            OperandMap im(g.rank, kWhole), fm(in[1].size(), kWhole);
            if (g.rank == 4) im[0] = o[0];
            im[h] = windowed(o[h], g.stride[0], g.fh);
            im[h + 1] = windowed(o[h + 1], g.stride[1], g.fw);
            fm.back() = o.back();
            return {im, fm};
          },
          [&](const Move&) -> PerOperand<OperandMap> { return {o}; },
          [&](const Zero&) -> PerOperand<OperandMap> { return {}; },
          [&](const Unary&) -> PerOperand<OperandMap> { return {o}; },
          [&](const Binary&) -> PerOperand<OperandMap> {
            PerOperand<OperandMap> maps;
            for (const Shape& s : in) {
              OperandMap m = o;
              for (std::size_t d = 0; d < s.size(); ++d) {
                if (s[d] == 1 && out[d] != 1) m[d] = kWhole;
              }
              maps.push_back(std::move(m));
            }
            return maps;
          },
          [&](const ReduceSum& r) -> PerOperand<OperandMap> {
            OperandMap m;
            for (std::size_t d = 0; d < in[0].size(); ++d) {
              if (d == r.axis) m.push_back(kWhole);
              else m.push_back(o[d < r.axis ? d : d - 1]);
            }
            return {m};
          }},
      op);
}

/// The output map of a loop whose axes are the output dimensions where `tile` is below the extent, in order.
/// The output dimensions of an unpadded conv whose image has rows (or columns) past the last window, which no
/// output reads (a stride that does not divide what the last window leaves).
AxisFlags unread_dims(const Spec& spec) {
  AxisFlags unread(spec.output().rank(), false);
  const auto* conv = std::get_if<Conv>(&spec.op);
  if (conv == nullptr || conv->padded()) return unread;
  const ConvGeometry g = conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
  for (std::size_t s = 0; s < 2; ++s) unread[g.row_dim + s] = g.window(s, g.out(s)) < g.image(s);
  return unread;
}

bool whole_tile_shrinks(const Spec& spec) {
  const AxisFlags unread = unread_dims(spec);
  return std::find(unread.begin(), unread.end(), true) != unread.end();
}

/// The output's map and the loop's axes: one per tiled dimension, and one of a single step per dimension of
/// `single` (a tile of the whole output, tile_out's precondition 3: its image window leaves the unread rows out).
OperandMap output_axes(const Shape& output, const Shape& tile, const AxisFlags& single, LoopAxes& axes) {
  OperandMap m(output.size(), kWhole);
  for (std::size_t d = 0; d < output.size(); ++d) {
    if (tile[d] >= output[d] && !single[d]) continue;
    m[d] = DimMap{static_cast<std::int8_t>(axes.size()), 0, 1};
    axes.push_back(LoopAxis{output[d], tile[d]});
  }
  return m;
}

/// The loop, assuming preconditions (1)-(4) hold.
Loop tile_loop(const TileOut& action, const Spec& spec) {
  Loop loop;
  loop.kind = LoopKind::tile;
  loop.parallel = action.parallel;
  const Shape& output = spec.output().shape;
  const AxisFlags single = action.tile == output ? unread_dims(spec) : AxisFlags(output.size(), false);
  const OperandMap out = output_axes(output, action.tile, single, loop.axes);
  loop.operands = output_tile_maps(spec, out);
  return loop;
}

Why shape_fails(const TileOut& action, const Spec& spec) {
  const Shape& out = spec.output().shape;
  if (action.tile.size() != out.size()) {
    return not_applicable("tile_out", 1, "tile ", shape_text(action.tile), " has rank ", action.tile.size(),
                          " but the output ", shape_text(out), " has rank ", out.size());
  }
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (action.tile[d] < 1) {
      return not_applicable("tile_out", 2, "tile extent ", action.tile[d], " in dimension ", d, " is below 1");
    }
    if (action.tile[d] > out[d]) {
      return not_applicable("tile_out", 2, "tile extent ", action.tile[d], " in dimension ", d,
                            " exceeds the output's ", out[d]);
    }
  }
  if (action.tile == out && !whole_tile_shrinks(spec)) {
    return not_applicable("tile_out", 3, "tile ", shape_text(action.tile), " is the whole output (and the "
                          "image has no rows or columns the conv does not read)");
  }
  if (action.parallel && spec.serial_only) {
    return not_applicable("tile_out", 4, "a parallel loop in a serial_only Spec");
  }
  if (const Conv* conv = padded_conv(spec.op)) {
    const std::size_t rows = conv_row_dim(out.size());  // the output's spatial dimensions: rows, then columns
    for (std::size_t d = rows; d < rows + 2 && d < out.size(); ++d) {
      if (action.tile[d] < out[d]) {
        return not_applicable("tile_out", 7, "a conv is padded (", conv->pad[0], "x", conv->pad[1],
                              ") and the tile cuts its output's dimension ", d, "; pad_image or slide first");
      }
    }
  }
  return std::nullopt;
}

bool has_vrf_operand(const Spec& spec) {
  for (const auto& t : spec.operands) {
    if (t.level == Level::VRF) return true;
  }
  return false;
}

Why vrf_fails(const Spec& spec, const Loop& loop) {
  const int bad = vrf_operand_split(spec, loop);
  if (bad < 0) return std::nullopt;
  const TensorSpec& t = spec.operands[static_cast<std::size_t>(bad)];
  return not_applicable("tile_out", 5, "operand ", bad, " (", shape_text(t.shape), " in VRF, vector size ",
                        t.vector_size, ") would be cut into partial vector registers");
}

/// Precondition (6): a Move with a VRF side keeps its memory side's tiles contiguous.
Why vector_move_fails(const Spec& spec, const Loop& loop) {
  if (!std::holds_alternative<Move>(spec.op)) return std::nullopt;
  for (std::size_t i = 0; i < 2; ++i) {
    if (spec.operands[1 - i].level != Level::VRF || spec.operands[i].level == Level::VRF) continue;
    for (std::uint32_t mask : loop_body_masks(loop.axes)) {
      const TensorSpec tile = loop_body_spec(spec, loop, mask).operands[i];
      if (!tile.contiguous) {
        return not_applicable("tile_out", 6, "the memory side's tile ", shape_text(tile.shape),
                              " is strided; vec_load and vec_store need it contiguous");
      }
    }
  }
  return std::nullopt;
}

/// Precondition (8): one k-step of a register tile cut into column tiles keeps its rows' broadcasts in registers
/// across the calls (the compiler loads each lhs element once), beside all the accumulators and one call's rhs.
Why shared_broadcasts_fail(const TileOut& action, const Spec& spec, const Target& target) {
  if (!std::holds_alternative<Matmul>(spec.op)) return std::nullopt;
  const TensorSpec& a = spec.input(0);
  const TensorSpec& c = spec.output();
  const std::size_t r = c.rank();
  if (c.level != Level::VRF || a.shape.back() != 1 || is_register_level(a.level)) return std::nullopt;
  const std::int64_t n = c.shape[r - 1], tile_n = action.tile[r - 1];
  if (tile_n == n) return std::nullopt;
  const std::int64_t width = target.vector_elements(c.dtype);
  const std::int64_t needed = registers_of(c) + action.tile[r - 2] + (tile_n + width - 1) / width;
  if (needed <= target.vector_registers) return std::nullopt;
  return not_applicable("tile_out", 8, "columns of ", tile_n, " of the ", shape_text(c.shape),
                        " register tile need ", needed, " vector registers (accumulators, one broadcast per row ",
                        "shared by the column tiles, one tile's rhs), the target has ", target.vector_registers);
}

/// Preconditions (5), (6) and (8), which only Specs with an operand in VRF can fail.
Why register_fails(const TileOut& action, const Spec& spec, const Target& target, const Loop& loop) {
  if (Why w = vrf_fails(spec, loop)) return w;
  if (Why w = shared_broadcasts_fail(action, spec, target)) return w;
  return vector_move_fails(spec, loop);
}

}  // namespace

namespace sched_detail {

PerOperand<OperandMap> output_tile_maps(const Spec& spec, const OperandMap& out_map) {
  PerOperand<OperandMap> maps(spec.operands.size());
  maps.back() = out_map;
  const auto* c = std::get_if<Compose>(&spec.op);
  if (c == nullptr) {
    PerOperand<Shape> in;
    for (const auto& t : spec.inputs()) in.push_back(t.shape);
    auto im = input_maps(*primitive(spec.op), span_of(in), spec.output().shape, out_map);
    for (std::size_t i = 0; i < im.size(); ++i) maps[i] = std::move(im[i]);
    return maps;
  }
  PerOperand<Shape> shapes;
  for (const auto& t : spec.inputs()) shapes.push_back(t.shape);
  const PerOperand<Shape> mids = compose_intermediate_shapes(*c, span_of(shapes));
  // First external operand of each stage.
  std::vector<std::size_t> first(c->stages.size());
  for (std::size_t s = 0, next = 0; s < c->stages.size(); ++s) {
    first[s] = next;
    next += input_count(c->stages[s]) - (s > 0);
  }
  OperandMap o = out_map;
  for (std::size_t s = c->stages.size(); s-- > 0;) {
    const PrimitiveOp& stage = c->stages[s];
    PerOperand<Shape> in;
    if (s > 0) in.push_back(mids[s - 1]);
    const std::size_t externals = input_count(stage) - (s > 0);
    for (std::size_t j = 0; j < externals; ++j) in.push_back(shapes[first[s] + j]);
    const Shape& out = s + 1 < c->stages.size() ? mids[s] : spec.output().shape;
    auto im = input_maps(stage, span_of(in), out, o);
    for (std::size_t j = 0; j < externals; ++j) maps[first[s] + j] = std::move(im[j + (s > 0)]);
    if (s > 0) o = std::move(im[0]);
  }
  return maps;
}

}  // namespace sched_detail

std::optional<NotApplicable> tile_out_fails(const TileOut& action, const Spec& spec, const Target& target) {
  if (Why w = shape_fails(action, spec)) return w;
  if (!has_vrf_operand(spec)) return std::nullopt;
  return register_fails(action, spec, target, tile_loop(action, spec));
}

ExpandResult expand_tile_out(const TileOut& action, const Spec& spec, const Target& target) {
  if (Why w = shape_fails(action, spec)) return *w;
  Loop loop = tile_loop(action, spec);
  if (Why w = register_fails(action, spec, target, loop)) return *w;
  return expansion(spec, std::move(loop));
}

}  // namespace kriek
