// Child Specs of loops, moves and pipelines (impl/reshape_pad.cpp: reshapes and pads), the checked factories of
// every node kind, and hole bookkeeping.
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

AxisFlags unrolled_axes(const Spec& spec, const Loop& loop) {
  AxisFlags unrolled(loop.axes.size(), false);
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

BodyMasks loop_body_masks(const LoopAxes& axes) {
  std::uint32_t partial = 0;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].remainder() != 0) partial |= 1u << a;
  }
  BodyMasks masks;
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

TensorSpec as_read(TensorSpec buffer, const Spec& spec) {
  buffer.shared = !spec.serial_only && !is_register_level(buffer.level) && parallel_worthwhile(spec);
  return buffer;
}

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
