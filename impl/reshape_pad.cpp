// Child Specs and operand walks of the two nodes that re-shape what their child sees: a reshape (flatten of
// elementwise ops, as_matmul of a 1x1 conv) and a pad (pad_image: a conv's image copied into a padded or unstrided
// buffer, its border zeroed). Declared in impl/node.h beside the other node kinds' child Specs.
#include <algorithm>
#include <type_traits>

#include "impl/node.h"
#include "impl/tiling.h"
#include "spec/conv_geometry.h"
#include "spec/error.h"

namespace kriek {

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

}  // namespace kriek
