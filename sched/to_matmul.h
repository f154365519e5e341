// to_matmul: a convolution whose window is 1x1 is a matmul. After tile_out has cut the output to one row of one
// image and split has looped over the filter taps, a Conv is OW x F outputs, each the dot product of one image
// pixel's C channels with a column of the C x F filters: matmul with M = OW, K = C, N = F over views of the
// conv's operands (the image read every stride columns, the filters' unit dimensions dropped). This is how a
// conv reaches the matmul micro-kernels (oneDNN's brgemm convolution does the same). Where the rows of a stride-1
// conv lie in one dense run of image and output (a pointwise conv over whole rows), M = N·OH·OW flattens them
// (oneDNN's 1x1 convolutions do the same): a 7x7 image is one M of 49, not seven of 7.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is Conv;
///   (2) it has no padding;
///   (3) its filter window is 1x1 (FH = FW = 1);
///   (4) its output is one row of one image (extent 1 in the batch and row dimensions) and so is its image (a
///       stride can leave image rows that no output reads), or its stride is 1 and its image and output are
///       dense (contiguous) and row-major, so its rows are one run;
///   (5) the image and the output are row-major, the filters row-major or blocked on their output channels
///       (their last dimension, oneDNN's Ohwi8o and kin).
/// One Reshape node whose child is the matmul (matmul[acc] when the conv accumulates).
ExpandResult expand_to_matmul(const ToMatmul& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_to_matmul, or nullopt when it applies (builds no node).
std::optional<NotApplicable> to_matmul_fails(const ToMatmul& action, const Spec& spec, const Target& target);

}  // namespace kriek
