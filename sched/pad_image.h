// pad_image: a Sched step that handles a conv's zero padding (slide's padded window and split_taps are the
// others). It makes a buffer of the padded image at a level and layout of its choice, zeroes its border, moves the
// image into its interior, and implements the same conv with no padding on that buffer; the kernels require pad 0,
// so the DP decides where the padding is made real, or skipped (split_taps). On a strided conv with a 1x1 window
// (unpadded) it takes out the stride instead: the buffer holds the pixels the conv reads, and the conv on it has
// stride 1, so its output rows make one dense matmul (to_matmul) rather than a matmul per row (ResNet-50's
// res5a_branch1, 1x14x14x1024 by 1x1x1024x2048 with stride 2: M = 49 instead of 7).
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is a Conv, or a Compose of a Conv then elementwise stages (leading_conv);
///   (2) it is padded, or unpadded with a 1x1 window and a stride above 1 on a row-major image with channels
///       (rank 3 or 4, more than one channel);
///   (3) the target has `level`, a memory level (GL, L2, L1);
///   (4) `level` is not slower than the image's;
///   (5) `layout` is valid for the image's rank;
///   (6) the padded image fits `level`'s capacity.
/// A PadOp node: a Zero of each strip of the buffer's border, Move of the image into its interior, then the conv
/// with pad 0 on the buffer (unstriding: Move of the pixels read, then the conv with stride 1 on the buffer).
ExpandResult expand_pad_image(const PadImage& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_pad_image, or nullopt when it applies (builds no node).
std::optional<NotApplicable> pad_image_fails(const PadImage& action, const Spec& spec, const Target& target);

}  // namespace kriek
