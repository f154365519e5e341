// split_taps: a padded conv's taps one filter row (or column) at a time, each over only the outputs whose windows
// read the image there, so the products with the zero padding are never computed (oneDNN's brgconv skips them
// alike). The other way to a padded conv, pad_image, makes the padding real and multiplies by it: at pad 1 that is
// 18% of a 3x3 conv's work on a 7x7 output (ResNet's last layers), 9% on 14x14.
#pragma once

#include "sched/action.h"

namespace kriek {

/// Preconditions:
///   (1) the op is a Conv that accumulates (to_accum first);
///   (2) `dim` is 0 (filter rows) or 1 (columns), and the conv is padded along it;
///   (3) every operand is in a memory level (GL, L2, L1): the taps' views start anywhere, not on registers;
///   (4) no operand is blocked along a dimension the taps cut (the filters' rows or columns, the image's and the
///       output's rows or columns).
/// A TapSplit node: per tap that reads any of the image, the conv of that tap on the image and output rows it has,
/// with no padding along `dim` (impl/taps.h).
ExpandResult expand_split_taps(const SplitTaps& action, const Spec& spec, const Target& target);

/// The failed precondition of expand_split_taps, or nullopt when it applies (builds no node).
std::optional<NotApplicable> split_taps_fails(const SplitTaps& action, const Spec& spec, const Target& target);

}  // namespace kriek
