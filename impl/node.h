// Impl trees: immutable nodes that each implement a Spec, with sub-Impls for their subproblems. Inner nodes are
// Loop, Move, Block and Pipeline; leaves are Kernel calls and Holes (unscheduled sub-Specs). Build nodes only
// through the make_* factories, which check that every child implements exactly the Spec its parent needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include <boost/container/static_vector.hpp>

#include "impl/kernel.h"
#include "impl/view.h"
#include "spec/error.h"
#include "spec/spec.h"

namespace kriek {

struct ImplNode;
using ImplPtr = std::shared_ptr<const ImplNode>;

enum class LoopKind : std::uint8_t { tile, split, slide };

/// One loop dimension: ceil(extent / tile) iterations; when `tile` does not divide `extent` the last iteration
/// covers the remainder (the boundary tile).
struct LoopAxis {
  std::int64_t extent = 1;
  std::int64_t tile = 1;
  std::int64_t trips() const { return (extent + tile - 1) / tile; }
  /// The trips of whole tiles (all but the boundary's).
  std::int64_t full_trips() const { return extent / tile; }
  std::int64_t remainder() const { return extent % tile; }
  friend bool operator==(const LoopAxis&, const LoopAxis&) = default;
};
/// A loop's axes, held inline like OperandMap.
using LoopAxes = boost::container::static_vector<LoopAxis, kMaxViewRank>;

/// How one operand dimension follows the loop. axis < 0: the body sees the whole extent. Otherwise, in
/// iteration i of that axis the body sees `extent(size)` elements from i*tile*step, where size is the axis's tile
/// (or its remainder), step the elements the operand advances per loop index (a conv's stride for its image) and
/// halo the overlap a convolution window needs (filter extent - 1). With step 1: [i*tile, i*tile + size + halo).
struct DimMap {
  std::int8_t axis = -1;
  std::int64_t halo = 0;
  std::int64_t step = 1;
  /// The extent a tile of `size` loop indices covers: (size - 1) * step + 1 + halo.
  std::int64_t extent(std::int64_t size) const { return (size - 1) * step + 1 + halo; }
  friend bool operator==(const DimMap&, const DimMap&) = default;
};
/// Held inline (at most a view's rank of dimensions): the DP builds the loops of millions of actions, and a heap
/// block per map was a large part of its time in malloc and free.
using OperandMap = boost::container::static_vector<DimMap, kMaxViewRank>;

/// A slide loop keeps one input's window in a buffer of its own, shifting the overlap between iterations and
/// loading only the new part (the Kriek report's slide[k]). A padded conv's window holds the image with its zero
/// border: `border` is the padding before (and after) the image in each of its dimensions (pad_interior_origin;
/// empty when none), the loop's map of the image indexes the padded image, elements outside the image are
/// zeroes in the window, and the body is the conv with pad 0 on the window. So the padded image is never made
/// whole (oneDNN pads in its kernels; a padded copy of res2_3x3's image is 0.86 MB more to keep in L2).
struct SlideWindow {
  std::uint8_t operand = 0;
  Level level = Level::GL;
  Layout layout;
  boost::container::static_vector<std::int64_t, kMaxViewRank> border;
  friend bool operator==(const SlideWindow&, const SlideWindow&) = default;
};

/// A loop's boundary patterns (loop_body_masks): held inline for up to two axes with remainders, as most loops
/// have (the search makes one for every tiling it tries; a heap block each was 0.8% of matmul 64^3's instructions).
using BodyMasks = boost::container::small_vector<std::uint32_t, 4>;

/// Loops over tiles. Children: one body per boundary pattern that occurs, in increasing `body_masks` order;
/// bit a of a mask is set when axis a is at its remainder. Printed as
/// `tile (lhsT: 32x128, outT: 32x32) <- (lhs, out)`, `split[64] ...`, `slide[32] ...`; `ptile` when parallel.
struct Loop {
  LoopKind kind = LoopKind::tile;
  bool parallel = false;
  LoopAxes axes;
  /// One per operand of the Spec, one DimMap per operand dimension.
  PerOperand<OperandMap> operands;
  std::optional<SlideWindow> window;
  BodyMasks body_masks;
};

/// Moves one operand into a new tensor `dest` (another level, layout or vector size) around the body. Children:
/// body, then the prologue (Move Spec operand → dest) when `load`, then the epilogue (Move Spec dest → operand)
/// when `store`. `alias`: dest is a cache level with the operand's placement, so no buffer is made and there are
/// no prologue/epilogue (data keeps its address). Printed `move[L1] lhsTr <- lhsT` (`move*` for outputs) and
/// `store outT <- outTr` after the body.
struct MoveOp {
  std::uint8_t operand = 0;
  TensorSpec dest;
  bool alias = false;
  bool load = false;
  bool store = false;
};

/// Statements in order over subsets of the operands, e.g. zero the output then accumulate into it. Child i
/// implements a Spec whose operands are the parent's operands `operands[i]`, in that order.
struct Block {
  std::vector<std::vector<std::uint8_t>> operands;
};

/// A Compose cut before stage `cut`: the head (stages [0, cut)) writes an intermediate buffer `buffer`, the tail
/// (stages [cut, n)) reads it. Children: head, tail.
struct Pipeline {
  std::uint8_t cut = 1;
  TensorSpec buffer;
};

/// The Spec computed as another over views of its operands (reshape_child_spec, reshape_views). Two kinds:
///  - a Conv whose window is 1x1 (pad 0, one output row of one image, or rows that form one run) as the matmul it
///    is: M = the output positions, K = the channels, N = the output channels, accumulating when the conv does;
///    the image read every stride columns, the filters as C x F, the output as OW x F. Printed
///    `as_matmul (imgV: 14x32 <- img, filtersV: 32x64 <- filters, outV: 14x64 <- out)`;
///  - an elementwise Spec (Unary, Binary, Move, Zero, a Compose of them) whose operands are row-major of one shape
///    as the same op over one flat run of all their elements, so that vectors run on across rows, or, where some
///    operand is strided, over its innermost dimensions merged as far as every operand's runs reach (flattened_dims:
///    a copy into the interior 1x224x224x3 of a padded image is one of 224 rows of 672 elements).
///    Printed `flatten (inV: 3663 <- in, outV: 3663 <- out)`.
struct Reshape {};

/// The image made the way the conv reads it: a Conv with padding reads a buffer `buffer` (the image with its zero
/// border, at a level and layout of its own) instead. Children: a Zero Spec of each strip of the border
/// (pad_border: the padding rows above and below, then the padding columns left and right of the image's rows;
/// only the border is cleared, the interior being overwritten next), load (Move Spec of the image into the
/// buffer's interior), body (the same conv with pad 0 reading the buffer). Printed `pad[L1 1x1] imgp <- img`.
/// An unpadded strided conv with a 1x1 window reads only every stride-th row and column of its image: its buffer
/// holds just those pixels (pad_unstrides; oneDNN's reduce-to-unit-stride), the load walks the image with the
/// stride (pad_image_walk), and the body is the conv with stride 1, whose output rows are one dense run of
/// to_matmul's M. Printed `pad[L1 stride 2x2] imgp <- img`.
struct PadOp {
  TensorSpec buffer;
};

/// A padded Conv that accumulates, one filter row (dim 0) or column (dim 1) at a time, each tap over only the
/// outputs whose windows read the image there and not its zero padding: the products with the padding are never
/// computed (oneDNN's brgconv skips them alike; at pad 1, a 7x7 output's border taps are 18% of a 3x3 conv's work).
/// Children: one per tap that reads any of the image, in tap order (impl/taps.h tap_ranges), each the conv of that
/// tap (filters of extent 1 along `dim`) on the image rows and output rows it has, with no padding along `dim`.
/// Printed `taps[fh]`, each child under `tap 0 (imgk: 1x6x7x64 <- img, filtersk: ..., outk: ...)`.
struct TapSplit {
  std::uint8_t dim = 0;
};

/// A leaf the target implements directly.
struct KernelCall {
  KernelKind kernel = KernelKind::scalar_mult_add;
};

/// An unscheduled sub-Spec.
struct Hole {};

using NodeKind = std::variant<Loop, MoveOp, Block, Pipeline, Reshape, PadOp, TapSplit, KernelCall, Hole>;

struct ImplNode {
  Spec spec;
  NodeKind kind;
  std::vector<ImplPtr> children;

  bool is_hole() const { return std::holds_alternative<Hole>(kind); }
};

// --- Child Specs: what each node kind asks of its children. Sched operators and the DP use these to state
// subproblems; the factories use them to check children. ---

/// The Spec of a loop body for boundary pattern `mask`.
Spec loop_body_spec(const Spec& spec, const Loop& loop, std::uint32_t mask);
/// The shape of what a slide window's loop map indexes: operand `t` with the window's border on both sides.
Shape window_source_shape(const TensorSpec& t, const SlideWindow& window);
/// The dimension of its operand that the window of slide loop `loop` moves along (its one mapped dimension).
std::size_t window_dim(const Loop& loop);
/// The boundary patterns that occur for these axes, increasing (always contains 0).
BodyMasks loop_body_masks(const LoopAxes& axes);
/// Iterations axis `a` of `loop` takes in the body of boundary pattern `mask`: 1 at its boundary, else its full
/// tiles.
std::int64_t pattern_trips(const Loop& loop, std::uint32_t mask, std::size_t a);
/// Iterations of `loop` that run the body of boundary pattern `mask`: pattern_trips' product over the axes.
std::int64_t body_runs(const Loop& loop, std::uint32_t mask);
/// `buffer` (a move's, pipeline's or pad's) as the child that reads it sees it: shared (TensorSpec::shared) when
/// `spec` may still run as a parallel loop and the buffer is in memory, since a thread team then fills it.
TensorSpec as_read(TensorSpec buffer, const Spec& spec);
/// The Specs of a move's children: body, then prologue if load, then epilogue if store.
std::vector<Spec> move_child_specs(const Spec& spec, const MoveOp& move);
/// The Spec of a pipeline's head and tail.
std::vector<Spec> pipeline_child_specs(const Spec& spec, const Pipeline& pipeline);
/// True when a Reshape of `spec` is a flatten (an elementwise op), false for a conv's as_matmul.
bool reshape_flattens(const Spec& spec);
/// The innermost dimensions a flatten of `spec` merges into one: as many as every operand's runs span
/// (TensorSpec::dense_dims); all of them when every operand is dense.
std::size_t flattened_dims(const Spec& spec);
/// The Spec a Reshape node of `spec` implements: a Conv's matmul, or an elementwise op's flat form (see
/// reshape_views for its operands).
Spec reshape_child_spec(const Spec& spec);
/// How each operand of the child walks the operand it views: per child dimension, the operand's dimension and
/// step (and the outer dimensions a flat walk spans). Conv dimensions that no matmul dimension walks have extent 1.
std::vector<std::vector<ViewDim>> reshape_views(const Spec& spec);
/// The Specs of a PadOp's children: a zero per border strip, load, body.
std::vector<Spec> pad_child_specs(const Spec& spec, const PadOp& pad);
/// Where the image sits in a PadOp's buffer: the padding before it in each buffer dimension.
Shape pad_interior_origin(const Spec& spec);
/// The shape of a PadOp's buffer: a padded conv's image with the padding on both sides, or the pixels an
/// unstriding one reads.
Shape padded_image_shape(const Spec& spec);
/// True when a PadOp of conv `spec` takes out its stride rather than padding it (see PadOp): unpadded, strided,
/// a 1x1 window, a row-major image of more than one channel (the load's tiles are runs of channels).
bool pad_unstrides(const Spec& spec);
/// How a PadOp's load reads the image (reshaped's map): empty when it pads (the image as it is); when it
/// unstrides, every dimension with step 1 but rows and columns, walked with the conv's stride.
std::vector<ViewDim> pad_image_walk(const Spec& spec);
/// A box of a buffer: its origin and shape.
struct Box {
  Shape origin;
  Shape shape;
};
/// The strips of a padded conv's buffer outside the image, which together are the whole border and do not overlap:
/// the padding rows above and below the image (whole buffer rows), then the padding columns left and right of each
/// image row. A dimension without padding has no strips.
std::vector<Box> pad_border(const Spec& spec);

// --- Operand routing: what each child is given, for any kind of operand view (the interpreter's buffers, the
// code generator's symbolic views), so every walker of Impl trees follows the same rules.

/// The operands statement `i` of a Block sees: the parent's `block.operands[i]`, in that order.
template <class V>
std::vector<V> block_operands(const Block& block, std::size_t i, const std::vector<V>& ops) {
  std::vector<V> picked;
  for (auto j : block.operands.at(i)) picked.push_back(ops.at(j));
  return picked;
}

/// A Pipeline node's head operands (the head's inputs, then `buffer`) and tail operands (`buffer`, then the
/// remaining inputs and the output).
template <class V>
std::pair<std::vector<V>, std::vector<V>> pipeline_operands(const ImplNode& n, const std::vector<V>& ops,
                                                            const V& buffer) {
  const auto head_inputs = static_cast<std::ptrdiff_t>(n.children.at(0)->spec.operands.size() - 1);
  std::vector<V> head(ops.begin(), ops.begin() + head_inputs);
  head.push_back(buffer);
  std::vector<V> tail{buffer};
  tail.insert(tail.end(), ops.begin() + head_inputs, ops.end());
  return {std::move(head), std::move(tail)};
}

/// A PadOp node's operands for its children: each zero {a border strip}, load {image, the buffer's interior}, body
/// (the buffer in place of the image). `border` are the buffer's sub-views of pad_border's boxes; the image is
/// read through pad_image_walk, and the interior is the buffer's sub-view at pad_interior_origin of what it reads
/// (`interior_at` makes a sub-view of the buffer at an origin: the interpreter's and the code generator's views
/// take their origins in different types).
template <class V, class SubAt>
std::vector<std::vector<V>> pad_operands(const Spec& spec, const std::vector<V>& ops, const V& buffer,
                                         const std::vector<V>& border, SubAt interior_at) {
  std::vector<std::vector<V>> children;
  for (const V& strip : border) children.push_back({strip});
  const std::vector<ViewDim> walk = pad_image_walk(spec);
  const V image = walk.empty() ? ops[0] : reshaped(ops[0], walk, padded_image_shape(spec));
  children.push_back({image, interior_at(pad_interior_origin(spec), image.shape)});
  std::vector<V> body = ops;
  body[0] = buffer;
  children.push_back(std::move(body));
  return children;
}

/// Requires (KRIEK_ASSERT) one operand view per operand of `n`'s Spec, each of its shape: what every walker
/// checks on entering a node.
template <class V>
void check_operand_views(const ImplNode& n, const std::vector<V>& ops) {
  KRIEK_ASSERT(ops.size() == n.spec.operands.size(), "node of ", n.spec.operands.size(), " operands given ",
               ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    KRIEK_ASSERT(ops[i].shape == n.spec.operands[i].shape, "operand ", i, " view shape differs from its Spec");
  }
}

/// The tile of operand `i` in the body of boundary pattern `mask` at iteration `trip` (one index per axis;
/// integers, or symbolic indices for the code generator): its origin within the operand and its shape.
template <class Index, class Origin>
void loop_tile(const Loop& loop, std::size_t i, const std::vector<Index>& trip, std::uint32_t mask, Origin& origin,
               Shape& shape) {
  for (std::size_t d = 0; d < loop.operands[i].size(); ++d) {
    const DimMap& m = loop.operands[i][d];
    if (m.axis < 0) continue;
    const auto a = static_cast<std::size_t>(m.axis);
    origin[d] = trip[a] * (loop.axes[a].tile * m.step);
    shape[d] = m.extent((mask >> a) & 1u ? loop.axes[a].remainder() : loop.axes[a].tile);
  }
}

/// A flag per loop axis (unrolled_axes) or per dimension, held inline.
using AxisFlags = boost::container::static_vector<bool, kMaxViewRank>;

/// The axes of `loop` (over operands of `spec`) that step through a register-held operand (VRF or RF): the code
/// generator unrolls them, since registers are named by constants, and the cost model charges them no iterations.
AxisFlags unrolled_axes(const Spec& spec, const Loop& loop);

// --- Factories. Each checks its invariants (KRIEK_ASSERT) including that child i implements the expected Spec.

ImplPtr make_hole(Spec spec);
ImplPtr make_kernel(Spec spec, KernelKind kernel, const Target& target);
ImplPtr make_loop(Spec spec, Loop loop, std::vector<ImplPtr> bodies);
ImplPtr make_move(Spec spec, MoveOp move, std::vector<ImplPtr> children);
ImplPtr make_block(Spec spec, Block block, std::vector<ImplPtr> children);
ImplPtr make_pipeline(Spec spec, Pipeline pipeline, std::vector<ImplPtr> children);
ImplPtr make_reshape(Spec spec, std::vector<ImplPtr> children);
ImplPtr make_pad(Spec spec, PadOp pad, std::vector<ImplPtr> children);
ImplPtr make_taps(Spec spec, TapSplit taps, std::vector<ImplPtr> children);

/// The same node with new children (each must implement the same Spec as the one it replaces).
ImplPtr with_children(const ImplNode& node, std::vector<ImplPtr> children);
/// A node whose children are Holes of the Specs it needs: what a Sched operator returns.
ImplPtr make_with_holes(Spec spec, NodeKind kind, const Target& target);

/// The order in which a node's children are printed and its holes numbered: a move's prologue, then its body,
/// then its epilogue; every other node's children in order.
std::vector<std::size_t> child_print_order(const ImplNode& node);
/// Holes in the tree, in print order (the order holes are named h1, h2, ...).
std::vector<const ImplNode*> holes(const ImplPtr& root);
/// True when the tree has no holes.
bool is_complete(const ImplPtr& root);
/// Replaces the `index`-th hole (print order) by `replacement`, which must implement that hole's Spec.
ImplPtr replace_hole(const ImplPtr& root, std::size_t index, ImplPtr replacement);

}  // namespace kriek
