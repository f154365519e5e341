// slide: the Kriek report's slide[k] loop (Figure 3). Tiles one spatial output dimension of a Conv (or of a conv
// with an elementwise epilogue, whose operands past the filters follow the output) by `size` and
// keeps the image's window (the rows or columns the tile needs, halo included) in a buffer at `level` in
// `layout`, shifting the overlap between iterations and loading only the new part. A strided conv's window steps
// by the stride; a padded conv's window holds the padded image's rows (zeroes outside the image), so its body is
// the conv with pad 0 and no padded copy of the whole image is made (SlideWindow::border).
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is a Conv, or a Compose of a Conv then elementwise stages (leading_conv);
///   (2) `dim` is a spatial dimension of the output (0 or 1; 1 or 2 for the batched rank-4 form);
///   (3) 1 <= size < the output's extent in `dim`;
///   (4) the target has `level`;
///   (5) `level` is not a register level (VRF, RF);
///   (6) `level` is not slower than the image's level;
///   (7) `layout` is valid for the image's rank;
///   (8) an output in VRF is cut into whole vector registers.
/// One loop axis; the image's rows (or columns) follow it with halo F-1 and step the stride, and live in the
/// window SlideWindow{0, level, layout, the conv's padding}; the output follows it; the filters are whole.
ExpandResult expand_slide(const Slide& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_slide, or nullopt when it applies (builds no node).
std::optional<NotApplicable> slide_fails(const Slide& action, const Spec& spec, const Target& target);

}  // namespace kriek
