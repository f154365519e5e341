// Child Specs of every node kind, the checked factories, and hole bookkeeping.
#include "impl/node.h"

#include <algorithm>
#include <sstream>
#include <type_traits>

#include "impl/parallel_rule.h"
#include "impl/taps.h"
#include "impl/tiling.h"
#include "spec/conv_geometry.h"
#include "spec/error.h"
#include "spec/overloaded.h"
#include "spec/text.h"

namespace kriek {
namespace {

std::string show(const Spec& s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

void check_child(const ImplPtr& child, const Spec& expected, const char* what) {
  KRIEK_ASSERT(child != nullptr, what, " is null");
  KRIEK_ASSERT(child->spec == expected, what, " implements ", show(child->spec), " but ", show(expected),
               " is needed");
}

/// Builds a Spec whose op is a stage range of a Compose: the primitive op for one stage.
Op stages_op(const Compose& c, std::size_t begin, std::size_t end) {
  if (end - begin == 1) return to_op(c.stages[begin]);
  return Compose{{c.stages.begin() + static_cast<std::ptrdiff_t>(begin),
                  c.stages.begin() + static_cast<std::ptrdiff_t>(end)}};
}

}  // namespace

std::vector<bool> unrolled_axes(const Spec& spec, const Loop& loop) {
  std::vector<bool> unrolled(loop.axes.size(), false);
  for (std::size_t i = 0; i < loop.operands.size() && i < spec.operands.size(); ++i) {
    if (!is_register_level(spec.operands[i].level)) continue;
    for (const DimMap& d : loop.operands[i]) {
      if (d.axis >= 0) unrolled[static_cast<std::size_t>(d.axis)] = true;
    }
  }
  return unrolled;
}

std::int64_t pattern_trips(const Loop& loop, std::uint32_t mask, std::size_t a) {
  return (mask >> a) & 1u ? 1 : loop.axes[a].full_trips();
}

std::int64_t body_runs(const Loop& loop, std::uint32_t mask) {
  std::int64_t n = 1;
  for (std::size_t a = 0; a < loop.axes.size(); ++a) n *= pattern_trips(loop, mask, a);
  return n;
}

std::vector<std::uint32_t> loop_body_masks(const LoopAxes& axes) {
  std::uint32_t partial = 0;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].remainder() != 0) partial |= 1u << a;
  }
  std::vector<std::uint32_t> masks;
  for (std::uint32_t m = 0; m <= partial; ++m) {
    if ((m & ~partial) == 0) masks.push_back(m);
  }
  return masks;
}

Shape window_source_shape(const TensorSpec& t, const SlideWindow& window) {
  Shape shape = t.shape;
  if (window.border.empty()) return shape;
  KRIEK_ASSERT(window.border.size() == shape.size(), "a window border of ", window.border.size(),
               " dimensions on a rank-", shape.size(), " operand");
  for (std::size_t d = 0; d < shape.size(); ++d) shape[d] += 2 * window.border[d];
  return shape;
}

std::size_t window_dim(const Loop& loop) {
  KRIEK_ASSERT(loop.window && loop.axes.size() == 1, "a slide window on a loop of ", loop.axes.size(), " axes");
  const OperandMap& map = loop.operands.at(loop.window->operand);
  std::size_t dim = map.size();
  for (std::size_t d = 0; d < map.size(); ++d) {
    if (map[d].axis < 0) continue;
    KRIEK_ASSERT(dim == map.size(), "a slide window moves along one dimension");
    dim = d;
  }
  KRIEK_ASSERT(dim < map.size(), "a slide window that does not move");
  return dim;
}

Spec loop_body_spec(const Spec& spec, const Loop& loop, std::uint32_t mask) {
  KRIEK_ASSERT(loop.operands.size() == spec.operands.size(), "loop maps ", loop.operands.size(),
               " operands of a Spec with ", spec.operands.size());
  Spec body = spec;
  // A slide's body runs on the thread that fills its window: a team below would read the window from that core's
  // cache and fork and join at every step (conv[stride=2,pad=1] 1x56x56x128 3x3x128x128 on 2 threads, a team
  // over the columns of each 15-row window: 1.49x its serial pick's speed, against 1.88x for pad_image and a
  // team over the padded image's rows).
  if (loop.parallel || loop.window) body.serial_only = true;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    const OperandMap& map = loop.operands[i];
    KRIEK_ASSERT(map.size() == t.rank(), "operand ", i, " map has ", map.size(), " dims, tensor rank ", t.rank());
    const bool windowed = loop.window && loop.window->operand == i;
    Shape shape = windowed ? window_source_shape(t, *loop.window) : t.shape, step = t.shape;
    for (std::size_t d = 0; d < map.size(); ++d) {
      if (map[d].axis < 0) continue;
      const LoopAxis& axis = loop.axes.at(static_cast<std::size_t>(map[d].axis));
      const bool at_remainder = (mask >> map[d].axis) & 1u;
      shape[d] = map[d].extent(at_remainder ? axis.remainder() : axis.tile);
      step[d] = axis.tile < axis.extent ? axis.tile * map[d].step : t.shape[d];
    }
    if (windowed) {
      TensorSpec w = t;
      w.shape = shape;
      w.level = loop.window->level;
      w.layout = loop.window->layout;
      w.vector_size = 0;
      w.aligned = true;
      w.set_contiguous(true);
      body.operands[i] = w;
    } else {
      body.operands[i] = tile_tensor(t, shape, step);
    }
  }
  if (loop.window && !loop.window->border.empty()) {
    Conv* conv = leading_conv(body.op);
    KRIEK_ASSERT(conv != nullptr, "a padded slide window on ", op_word(spec.op));
    conv->pad = {0, 0};  // the window holds the zeroes
  }
  return body;
}

namespace {

/// `buffer` as the body that reads it sees it: shared (TensorSpec::shared) when `spec` may still run as a parallel
/// loop and the buffer is in memory, since a thread team then fills it.
TensorSpec as_read(TensorSpec buffer, const Spec& spec) {
  buffer.shared = !spec.serial_only && !is_register_level(buffer.level) && parallel_worthwhile(spec);
  return buffer;
}

}  // namespace

std::vector<Spec> move_child_specs(const Spec& spec, const MoveOp& move) {
  KRIEK_ASSERT(move.operand < spec.operands.size(), "move of operand ", int(move.operand));
  const TensorSpec& source = spec.operands[move.operand];
  KRIEK_ASSERT(move.dest.shape == source.shape && move.dest.dtype == source.dtype,
               "a move keeps shape and dtype");
  std::vector<Spec> out;
  Spec body = spec;
  // A copy of an input is a new buffer; an alias is the source's own data.
  const bool copied_input = !move.alias && move.load && !move.store;
  body.operands[move.operand] = copied_input ? as_read(move.dest, spec) : move.dest;
  out.push_back(std::move(body));
  if (move.load) out.push_back(Spec{Move{}, {source, move.dest}, spec.serial_only});
  if (move.store) out.push_back(Spec{Move{}, {move.dest, source}, spec.serial_only});
  return out;
}

std::vector<Spec> pipeline_child_specs(const Spec& spec, const Pipeline& p) {
  const auto* c = std::get_if<Compose>(&spec.op);
  KRIEK_ASSERT(c != nullptr, "a pipeline implements a Compose");
  KRIEK_ASSERT(p.cut >= 1 && p.cut < c->stages.size(), "pipeline cut ", int(p.cut), " of ", c->stages.size(),
               " stages");
  std::size_t head_inputs = 0;
  for (std::size_t i = 0; i < p.cut; ++i) head_inputs += input_count(c->stages[i]) - (i > 0);
  Spec head{stages_op(*c, 0, p.cut), {}, spec.serial_only};
  head.operands.assign(spec.operands.begin(), spec.operands.begin() + static_cast<std::ptrdiff_t>(head_inputs));
  head.operands.push_back(p.buffer);
  Spec tail{stages_op(*c, p.cut, c->stages.size()), {as_read(p.buffer, spec)}, spec.serial_only};
  tail.operands.insert(tail.operands.end(), spec.operands.begin() + static_cast<std::ptrdiff_t>(head_inputs),
                       spec.operands.end());
  return {std::move(head), std::move(tail)};
}

bool reshape_flattens(const Spec& spec) {
  const auto elementwise = [](const auto& p) {
    using T = std::decay_t<decltype(p)>;
    return std::is_same_v<T, Unary> || std::is_same_v<T, Binary> || std::is_same_v<T, Move> ||
           std::is_same_v<T, Zero>;
  };
  if (const auto* c = std::get_if<Compose>(&spec.op)) {
    return std::all_of(c->stages.begin(), c->stages.end(),
                       [&](const PrimitiveOp& stage) { return std::visit(elementwise, stage); });
  }
  return std::visit(elementwise, spec.op);
}

std::size_t flattened_dims(const Spec& spec) {
  std::size_t dims = spec.output().rank();
  for (const TensorSpec& t : spec.operands) dims = std::min(dims, t.dense_dims());
  return dims;
}

std::vector<std::vector<ViewDim>> reshape_views(const Spec& spec) {
  if (reshape_flattens(spec)) {
    // The outer dimensions as they are, then one walk through the merged ones (dense in every operand).
    const std::size_t merged = flattened_dims(spec), rank = spec.output().rank();
    std::vector<ViewDim> map;
    for (std::size_t d = 0; d + merged < rank; ++d) map.push_back(ViewDim{d, 1});
    map.push_back(ViewDim{rank - 1, 1, merged - 1});
    return std::vector<std::vector<ViewDim>>(spec.operands.size(), map);
  }
  const auto* conv = std::get_if<Conv>(&spec.op);
  KRIEK_ASSERT(conv != nullptr, "a reshape of a ", op_word(spec.op));
  const ConvGeometry g = conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
  const std::size_t col = g.row_dim + 1;
  // Rank 2 has no channels: K = 1 walks the (unit) row dimension.
  const ViewDim channels = g.rank >= 3 ? ViewDim{g.rank - 1, 1} : ViewDim{g.row_dim, 1};
  const ViewDim filter_channels = g.rank >= 3 ? ViewDim{2, 1} : ViewDim{0, 1};
  const std::size_t filter_out = spec.input(1).rank() - 1;
  // Several output rows (or images) are one run of M through the dense image and output (to_matmul's
  // precondition 4), walked as one flattened dimension.
  const std::size_t spans = g.batch * g.oh > 1 ? col : 0;
  return {{ViewDim{col, g.stride[1], spans}, channels},
          {filter_channels, ViewDim{filter_out, 1}},
          {ViewDim{col, 1, spans}, ViewDim{spec.output().rank() - 1, 1}}};
}

Spec reshape_child_spec(const Spec& spec) {
  if (reshape_flattens(spec)) {
    Spec flat = spec;
    const std::size_t merged = flattened_dims(spec);
    for (TensorSpec& t : flat.operands) {
      KRIEK_ASSERT(merged >= 2 && t.layout.kind == Layout::Kind::row_major && t.shape == spec.output().shape,
                   "flatten needs row-major operands of the output's shape whose runs span 2 dimensions or more");
      Shape shape(t.shape.begin(), t.shape.end() - static_cast<std::ptrdiff_t>(merged));
      shape.push_back(volume(Shape(t.shape.end() - static_cast<std::ptrdiff_t>(merged), t.shape.end())));
      t.shape = shape;
      if (!t.contiguous) t.run_dims = static_cast<std::uint8_t>(t.run_dims - merged + 1);
    }
    return flat;
  }
  const auto& conv = std::get<Conv>(spec.op);
  const ConvGeometry g = conv_geometry(conv, spec.input(0).shape, spec.input(1).shape);
  const std::int64_t rows = g.batch * g.oh * g.ow;
  const TensorSpec& img = spec.input(0);
  const TensorSpec& f = spec.input(1);
  const TensorSpec& out = spec.output();
  KRIEK_ASSERT(!conv.padded() && g.fh == 1 && g.fw == 1 &&
                   (rows == g.ow || (g.stride == std::array<std::int64_t, 2>{1, 1} && img.contiguous && out.contiguous)),
               "as_matmul needs a 1x1 window, no padding, and one output row or dense rows of stride 1");
  Spec m{Matmul{conv.accumulate}, {img, f, out}, spec.serial_only};
  TensorSpec& lhs = m.operands[0];
  lhs.shape = {rows, g.c};
  lhs.layout = Layout::row_major();
  lhs.set_contiguous(img.contiguous && (g.stride[1] == 1 || rows == 1));
  // Its rows are pixels stride columns apart: each starts on a line when that many pixels' channels are whole
  // lines (of a strided image, its alignment says so of all its strides).
  if (img.contiguous && !lhs.contiguous) {
    lhs.aligned = img.aligned && whole_lines(g.c * g.stride[1], img.dtype);
  }
  TensorSpec& rhs = m.operands[1];
  rhs.shape = {g.c, g.f};
  rhs.set_contiguous(f.contiguous);
  rhs.layout = f.layout.kind == Layout::Kind::blocked ? Layout::blocked(1, f.layout.block) : Layout::row_major();
  TensorSpec& o = m.operands[2];
  o.shape = {rows, g.f};
  o.set_contiguous(out.contiguous);
  o.layout = Layout::row_major();
  return m;
}

namespace {

ConvGeometry geometry_of(const Spec& spec) {
  const Conv* conv = leading_conv(spec.op);
  KRIEK_ASSERT(conv != nullptr, "the geometry of a conv in ", op_word(spec.op));
  return conv_geometry(*conv, spec.input(0).shape, spec.input(1).shape);
}

/// pad_unstrides on a conv's geometry. The load's tiles are runs of channels: the TensorSpecs below know no steps,
/// so the innermost dimension must be channels (more than one) in a row-major image, never the stepped columns.
bool unstrides(const Spec& spec, const ConvGeometry& g) {
  return g.pad[0] == 0 && g.pad[1] == 0 && g.fh == 1 && g.fw == 1 && (g.stride[0] > 1 || g.stride[1] > 1) &&
         g.rank >= 3 && g.c > 1 && spec.input(0).layout.kind == Layout::Kind::row_major;
}

/// The padding before the image in each dimension of the padded buffer.
Shape interior_origin(const ConvGeometry& g) {
  Shape origin(g.rank, 0);
  origin[g.row_dim] = g.pad[0];
  origin[g.row_dim + 1] = g.pad[1];
  return origin;
}

/// `image` with `origin`'s padding on both sides.
Shape padded_shape(Shape image, const Shape& origin) {
  for (std::size_t d = 0; d < image.size(); ++d) image[d] += 2 * origin[d];
  return image;
}

/// padded_image_shape on a conv's geometry.
Shape buffer_shape(const Spec& spec, const ConvGeometry& g) {
  Shape image = spec.input(0).shape;
  if (!unstrides(spec, g)) return padded_shape(std::move(image), interior_origin(g));
  image[g.row_dim] = g.oh;
  image[g.row_dim + 1] = g.ow;
  return image;
}

}  // namespace

std::vector<Spec> pad_child_specs(const Spec& spec, const PadOp& pad) {
  const Conv* conv = leading_conv(spec.op);
  KRIEK_ASSERT(conv != nullptr, "a pad node implements a conv, not ", op_word(spec.op));
  const ConvGeometry g = geometry_of(spec);
  const bool unstriding = unstrides(spec, g);
  KRIEK_ASSERT(conv->padded() || unstriding, "a pad node implements a padded conv or takes out the stride of a "
               "strided 1x1 one");
  const TensorSpec& img = spec.input(0);
  const Shape padded = buffer_shape(spec, g);
  KRIEK_ASSERT(pad.buffer.shape == padded && pad.buffer.dtype == img.dtype, "the pad buffer of ",
               shape_text(img.shape), " must be ", shape_text(padded), ", not ", shape_text(pad.buffer.shape));
  // The image as the load reads it: all of it, or (unstriding) its pixels every stride rows and columns, each a
  // run of its channels, which start on a line where the image's channels fill whole lines.
  TensorSpec read = img;
  if (unstriding) {
    read.shape = padded;
    read.set_contiguous(false);
    read.aligned = img.aligned && whole_lines(img.shape.back(), img.dtype);
  }
  // The interior starts at the padding, which is no tile multiple: not aligned (unstriding: the whole buffer).
  TensorSpec interior = tile_tensor(pad.buffer, read.shape);
  interior.aligned = interior.aligned && unstriding;
  Spec body = spec;
  leading_conv(body.op)->pad = {0, 0};
  if (unstriding) leading_conv(body.op)->stride = {1, 1};
  body.operands[0] = as_read(pad.buffer, spec);
  std::vector<Spec> children;
  for (const Box& strip : pad_border(spec)) {
    // The strip above starts where the buffer does; the others at the padding or past the image. (A strip of
    // several runs is aligned only where each starts on a line: tile_tensor with no step says whether.)
    TensorSpec t = tile_tensor(pad.buffer, strip.shape, pad.buffer.shape);
    const bool at_origin = std::all_of(strip.origin.begin(), strip.origin.end(), [](auto o) { return o == 0; });
    t.aligned = t.aligned && at_origin;
    children.push_back(Spec{Zero{}, {t}, spec.serial_only});
  }
  children.push_back(Spec{Move{}, {read, interior}, spec.serial_only});
  children.push_back(std::move(body));
  return children;
}

bool pad_unstrides(const Spec& spec) {
  return leading_conv(spec.op) != nullptr && unstrides(spec, geometry_of(spec));
}

std::vector<ViewDim> pad_image_walk(const Spec& spec) {
  const ConvGeometry g = geometry_of(spec);
  if (!unstrides(spec, g)) return {};
  std::vector<ViewDim> walk;
  for (std::size_t d = 0; d < g.rank; ++d) walk.push_back(ViewDim{d, 1});
  walk[g.row_dim].step = g.stride[0];
  walk[g.row_dim + 1].step = g.stride[1];
  return walk;
}

std::vector<Box> pad_border(const Spec& spec) {
  const Shape& image = spec.input(0).shape;
  const ConvGeometry g = geometry_of(spec);
  const std::size_t row = g.row_dim;
  const Shape origin = interior_origin(g);
  const Shape padded = padded_shape(image, origin);
  std::vector<Box> strips;
  if (origin[row] > 0) {
    Box above{Shape(padded.size(), 0), padded};
    above.shape[row] = origin[row];
    Box below = above;
    below.origin[row] = origin[row] + image[row];
    strips.push_back(std::move(above));
    strips.push_back(std::move(below));
  }
  if (origin[row + 1] > 0) {
    Box left{Shape(padded.size(), 0), padded};
    left.origin[row] = origin[row];
    left.shape[row] = image[row];
    left.shape[row + 1] = origin[row + 1];
    Box right = left;
    right.origin[row + 1] = origin[row + 1] + image[row + 1];
    strips.push_back(std::move(left));
    strips.push_back(std::move(right));
  }
  return strips;
}

Shape padded_image_shape(const Spec& spec) { return buffer_shape(spec, geometry_of(spec)); }

Shape pad_interior_origin(const Spec& spec) { return interior_origin(geometry_of(spec)); }

ImplPtr make_hole(Spec spec) {
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), Hole{}, {}});
}

ImplPtr make_kernel(Spec spec, KernelKind kernel, const Target& target) {
  auto why = kernel_illegal(kernel, spec, target);
  KRIEK_ASSERT(!why, "kernel ", kernel_name(kernel), " cannot implement ", show(spec), ": ", why.value_or(""));
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), KernelCall{kernel}, {}});
}

ImplPtr make_loop(Spec spec, Loop loop, std::vector<ImplPtr> bodies) {
  KRIEK_ASSERT(!loop.axes.empty(), "a loop needs an axis");
  for (const LoopAxis& a : loop.axes) {
    KRIEK_ASSERT(a.tile >= 1 && a.tile <= a.extent, "loop tile ", a.tile, " of extent ", a.extent);
  }
  KRIEK_ASSERT(!(loop.parallel && spec.serial_only), "parallel loop in a serial Spec");
  loop.body_masks = loop_body_masks(loop.axes);
  KRIEK_ASSERT(bodies.size() == loop.body_masks.size(), "loop has ", loop.body_masks.size(),
               " boundary patterns but ", bodies.size(), " bodies");
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    check_child(bodies[i], loop_body_spec(spec, loop, loop.body_masks[i]), "loop body");
  }
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), std::move(loop), std::move(bodies)});
}

ImplPtr make_move(Spec spec, MoveOp move, std::vector<ImplPtr> children) {
  KRIEK_ASSERT(!(move.alias && (move.load || move.store)), "an aliasing move has no prologue or epilogue");
  auto expected = move_child_specs(spec, move);
  KRIEK_ASSERT(children.size() == expected.size(), "move needs ", expected.size(), " children, got ",
               children.size());
  for (std::size_t i = 0; i < children.size(); ++i) check_child(children[i], expected[i], "move child");
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), std::move(move), std::move(children)});
}

ImplPtr make_block(Spec spec, Block block, std::vector<ImplPtr> children) {
  KRIEK_ASSERT(block.operands.size() == children.size() && !children.empty(), "block statement count");
  for (std::size_t i = 0; i < children.size(); ++i) {
    KRIEK_ASSERT(children[i] && children[i]->spec.operands.size() == block.operands[i].size(),
                 "block statement ", i, " operand count");
    for (std::size_t j = 0; j < block.operands[i].size(); ++j) {
      KRIEK_ASSERT(children[i]->spec.operands[j] == spec.operands.at(block.operands[i][j]), "block statement ", i,
                   " operand ", j, " differs from parent operand ", int(block.operands[i][j]));
    }
  }
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), std::move(block), std::move(children)});
}

ImplPtr make_pipeline(Spec spec, Pipeline pipeline, std::vector<ImplPtr> children) {
  auto expected = pipeline_child_specs(spec, pipeline);
  KRIEK_ASSERT(children.size() == 2, "a pipeline has a head and a tail");
  check_child(children[0], expected[0], "pipeline head");
  check_child(children[1], expected[1], "pipeline tail");
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), std::move(pipeline), std::move(children)});
}

ImplPtr make_reshape(Spec spec, std::vector<ImplPtr> children) {
  KRIEK_ASSERT(children.size() == 1, "a reshape has one child");
  check_child(children[0], reshape_child_spec(spec), "reshape body");
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), Reshape{}, std::move(children)});
}

ImplPtr make_pad(Spec spec, PadOp pad, std::vector<ImplPtr> children) {
  auto expected = pad_child_specs(spec, pad);
  KRIEK_ASSERT(children.size() == expected.size(), "pad needs ", expected.size(), " children, got ", children.size());
  for (std::size_t i = 0; i < children.size(); ++i) check_child(children[i], expected[i], "pad child");
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), std::move(pad), std::move(children)});
}

ImplPtr make_taps(Spec spec, TapSplit taps, std::vector<ImplPtr> children) {
  auto expected = tap_child_specs(spec, taps);
  KRIEK_ASSERT(children.size() == expected.size(), "taps needs ", expected.size(), " children, got ",
               children.size());
  for (std::size_t i = 0; i < children.size(); ++i) check_child(children[i], expected[i], "tap");
  return std::make_shared<const ImplNode>(ImplNode{std::move(spec), taps, std::move(children)});
}

ImplPtr with_children(const ImplNode& node, std::vector<ImplPtr> children) {
  KRIEK_ASSERT(children.size() == node.children.size(), "with_children changes the child count");
  for (std::size_t i = 0; i < children.size(); ++i) {
    check_child(children[i], node.children[i]->spec, "replacement child");
  }
  return std::make_shared<const ImplNode>(ImplNode{node.spec, node.kind, std::move(children)});
}

ImplPtr make_with_holes(Spec spec, NodeKind kind, const Target& target) {
  return std::visit(
      overloaded{
          [&](Loop& loop) {
            std::vector<ImplPtr> bodies;
            for (auto mask : loop_body_masks(loop.axes)) bodies.push_back(make_hole(loop_body_spec(spec, loop, mask)));
            return make_loop(spec, std::move(loop), std::move(bodies));
          },
          [&](MoveOp& move) {
            std::vector<ImplPtr> children;
            for (auto& s : move_child_specs(spec, move)) children.push_back(make_hole(std::move(s)));
            return make_move(spec, std::move(move), std::move(children));
          },
          [&](Pipeline& p) {
            std::vector<ImplPtr> children;
            for (auto& s : pipeline_child_specs(spec, p)) children.push_back(make_hole(std::move(s)));
            return make_pipeline(spec, std::move(p), std::move(children));
          },
          [&](Reshape&) { return make_reshape(spec, {make_hole(reshape_child_spec(spec))}); },
          [&](PadOp& p) {
            std::vector<ImplPtr> children;
            for (auto& s : pad_child_specs(spec, p)) children.push_back(make_hole(std::move(s)));
            return make_pad(spec, std::move(p), std::move(children));
          },
          [&](TapSplit& t) {
            std::vector<ImplPtr> children;
            for (auto& s : tap_child_specs(spec, t)) children.push_back(make_hole(std::move(s)));
            return make_taps(spec, t, std::move(children));
          },
          [&](KernelCall& k) { return make_kernel(spec, k.kernel, target); },
          [&](Hole&) { return make_hole(spec); },
          [&](Block&) -> ImplPtr {
            KRIEK_ASSERT(false, "a Block's statement Specs are not implied by the Block alone");
            return nullptr;
          }},
      kind);
}

std::vector<std::size_t> child_print_order(const ImplNode& node) {
  std::vector<std::size_t> order(node.children.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (const auto* m = std::get_if<MoveOp>(&node.kind); m && m->load) std::swap(order[0], order[1]);
  return order;
}

namespace {
void collect_holes(const ImplPtr& node, std::vector<const ImplNode*>& out) {
  if (node->is_hole()) out.push_back(node.get());
  for (std::size_t i : child_print_order(*node)) collect_holes(node->children[i], out);
}

ImplPtr replace_nth(const ImplPtr& node, std::size_t& remaining, bool& done, const ImplPtr& replacement) {
  if (done) return node;
  if (node->is_hole()) {
    if (remaining-- != 0) return node;
    done = true;
    check_child(replacement, node->spec, "hole replacement");
    return replacement;
  }
  std::vector<ImplPtr> children = node->children;
  bool changed = false;
  for (std::size_t i : child_print_order(*node)) {
    children[i] = replace_nth(node->children[i], remaining, done, replacement);
    changed |= children[i] != node->children[i];
  }
  if (!changed) return node;
  return std::make_shared<const ImplNode>(ImplNode{node->spec, node->kind, std::move(children)});
}
}  // namespace

std::vector<const ImplNode*> holes(const ImplPtr& root) {
  std::vector<const ImplNode*> out;
  collect_holes(root, out);
  return out;
}

bool is_complete(const ImplPtr& root) { return holes(root).empty(); }

ImplPtr replace_hole(const ImplPtr& root, std::size_t index, ImplPtr replacement) {
  const std::size_t count = holes(root).size();
  KRIEK_ASSERT(index < count, "hole ", index, " of ", count);
  bool done = false;
  return replace_nth(root, index, done, replacement);
}

}  // namespace kriek
