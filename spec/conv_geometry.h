// The geometry of a Conv in one place: which dimensions of its three forms (rank-2, -3 and -4 images) hold rows,
// columns and channels, the extents, strides and padding, and the output extents they give. Shape rules, the
// reference, the Sched operators and the interpreter all read a conv through this.
#pragma once

#include <array>
#include <cstdint>

#include "spec/ops.h"
#include "spec/shape.h"

namespace kriek {

struct ConvGeometry {
  std::size_t rank = 2;     ///< the image's rank (2, 3 or 4)
  std::size_t row_dim = 0;  ///< the image's and the output's dimension of rows (1 in the batched form); columns next
  std::int64_t batch = 1, h = 1, w = 1, c = 1;  ///< image extents (batch and c are 1 where the form has none)
  std::int64_t fh = 1, fw = 1, f = 1;           ///< filter rows, columns, output channels
  std::int64_t oh = 1, ow = 1;                  ///< output rows and columns
  std::array<std::int64_t, 2> stride{1, 1}, pad{0, 0};

  /// Filter extent along spatial dimension s (0 rows, 1 columns), and the image's and output's extents.
  std::int64_t filter(std::size_t s) const { return s == 0 ? fh : fw; }
  std::int64_t image(std::size_t s) const { return s == 0 ? h : w; }
  std::int64_t out(std::size_t s) const { return s == 0 ? oh : ow; }
  /// Image rows (or columns, s = 1) that `outputs` consecutive output rows read without padding:
  /// (outputs - 1) * stride + filter extent.
  std::int64_t window(std::size_t s, std::int64_t outputs) const { return (outputs - 1) * stride[s] + filter(s); }
};

/// The dimension of rows of a conv's image or output of rank `rank`: 1 in the batched rank-4 form, else 0.
inline std::size_t conv_row_dim(std::size_t rank) { return rank == 4 ? 1 : 0; }

/// The geometry of `conv` on an image of shape `img` and filters of shape `filters`, or a UserError naming the
/// values when they do not make a convolution (ranks, channels, a stride of 0, padding not smaller than the
/// filter, filters larger than the padded image).
ConvGeometry conv_geometry(const Conv& conv, const Shape& img, const Shape& filters);

/// The conv an op computes as a conv: the op itself, or the first stage of a Compose whose later stages are all
/// elementwise (an epilogue, compose[conv, add, relu]: its output is the conv's, its first two inputs the conv's
/// image and filters, so it tiles, slides and pads its image like the conv); nullptr for any other op.
const Conv* leading_conv(const Op& op);
Conv* leading_conv(Op& op);

}  // namespace kriek
