// Actions: the Sched operators as plain values. Applying an action to a Spec gives one Impl node whose children
// are all Holes (the subproblems), or NotApplicable with the number and text of the precondition that failed.
// Actions are also what the DP table stores (a structured encoding, never an index into an enumeration).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>

#include "impl/node.h"
#include "spec/spec.h"
#include "spec/target.h"

namespace kriek {

/// Why an action does not apply, e.g. "tile_out (2): tile 0x32 has an extent below 1".
struct NotApplicable {
  std::string reason;
};

using ApplyResult = std::variant<ImplPtr, NotApplicable>;

/// What applying an action makes, without building the node: its kind and the Specs of its children in child
/// order (a Block's statements, a Loop's bodies by boundary pattern, a move's body, prologue, epilogue). apply()
/// builds exactly this node with Holes of these Specs; the DP reads only this.
struct Expansion {
  NodeKind kind;
  std::vector<Spec> children;
};

using ExpandResult = std::variant<Expansion, NotApplicable>;

/// Loops over tiles of the output of shape `tile` (inputs tiled to match; conv images with their halo).
/// `parallel` makes the loop parallel (its bodies serial).
struct TileOut {
  Shape tile;
  bool parallel = false;
  friend bool operator==(const TileOut&, const TileOut&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(tile, parallel); }
};

/// Tiles a reduction by `k`, accumulating: `axis` 0 the op's main one (Matmul's K, Conv's channels, ReduceSum's
/// axis), 1 a Conv's filter rows, 2 its filter columns (sched/support.h's ReductionAxis).
struct Split {
  std::int64_t k = 1;
  std::uint8_t axis = 0;
  friend bool operator==(const Split&, const Split&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(k, axis); }
};

/// The word of a Split's axis in action text and the REPL: "" for the main reduction, "fh" and "fw" for a conv's
/// filter rows and columns; and back (nullopt for a word that names none).
std::string split_axis_word(std::uint8_t axis);
std::optional<std::uint8_t> split_axis_of(std::string_view word);

/// The report's sliding window: tiles output dimension `dim` by `size` and keeps the image's window in a buffer
/// at `level` in `layout`, loading only the rows new to each step.
struct Slide {
  std::uint8_t dim = 0;
  std::int64_t size = 1;
  Level level = Level::GL;
  Layout layout;
  friend bool operator==(const Slide&, const Slide&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(dim, size, level, layout); }
};

/// Moves operand `operand` (inputs first, the output last) to `level` in `layout`, with `vector_size` elements
/// per register when `level` is VRF. Into a cache, a layout that places the elements as the operand's own does is
/// an alias unless `copy`: then a strided operand is packed into a contiguous buffer of its own placement (a
/// K x 64 tile of a wide row-major matrix as one 64-column panel, each row one run).
struct MoveTo {
  std::uint8_t operand = 0;
  Level level = Level::GL;
  Layout layout;
  std::uint32_t vector_size = 0;
  bool copy = false;
  friend bool operator==(const MoveTo&, const MoveTo&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(operand, level, layout, vector_size, copy); }
};

/// Zero the output, then accumulate into it.
struct ToAccum {
  friend bool operator==(const ToAccum&, const ToAccum&) = default;
  template <class Archive> void serialize(Archive&) {}
};

/// Cuts a Compose before stage `cut` with an intermediate buffer at `level` in `layout`.
struct Bufferize {
  std::uint8_t cut = 1;
  Level level = Level::GL;
  Layout layout;
  friend bool operator==(const Bufferize&, const Bufferize&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(cut, level, layout); }
};

/// A Conv with a 1x1 window, no padding and one output row as a matmul over views of its operands (Reshape).
struct ToMatmul {
  friend bool operator==(const ToMatmul&, const ToMatmul&) = default;
  template <class Archive> void serialize(Archive&) {}
};

/// An elementwise Spec of dense row-major operands as the same op over one flat run of their elements (Reshape).
struct Flatten {
  friend bool operator==(const Flatten&, const Flatten&) = default;
  template <class Archive> void serialize(Archive&) {}
};

/// A padded Conv reads a zero-bordered copy of its image made at `level` in `layout` (PadOp).
struct PadImage {
  Level level = Level::GL;
  Layout layout;
  friend bool operator==(const PadImage&, const PadImage&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(level, layout); }
};

/// A padded Conv that accumulates, one filter row (dim 0) or column (dim 1) at a time, each tap over only the
/// outputs whose windows read the image, not its padding (TapSplit).
struct SplitTaps {
  std::uint8_t dim = 0;
  friend bool operator==(const SplitTaps&, const SplitTaps&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(dim); }
};

/// Implements the Spec with a target kernel.
struct Select {
  KernelKind kernel = KernelKind::scalar_mult_add;
  friend bool operator==(const Select&, const Select&) = default;
  template <class Archive> void serialize(Archive& ar) { ar(kernel); }
};

using Action =
    std::variant<TileOut, Split, Slide, MoveTo, ToAccum, Bufferize, ToMatmul, PadImage, SplitTaps, Select, Flatten>;

/// Applies the action: an Impl node whose children are Holes, or NotApplicable. Never throws.
ApplyResult apply(const Action& action, const Spec& spec, const Target& target);
/// The node apply() makes, as its kind and its children's Specs (no Impl node, no Holes). Never throws.
ExpandResult expand(const Action& action, const Spec& spec, const Target& target);
/// expand() for a Spec known to keep its op's shape rules (operand count, output shape), which expand() checks
/// first: the search checks each Spec's rules with its first action only, not again for each of its thousands.
ExpandResult expand_valid(const Action& action, const Spec& spec, const Target& target);

/// Every legal action of `spec`, in a deterministic order (see enumerate.cpp for the tile-size grid).
std::vector<Action> enumerate_actions(const Spec& spec, const Target& target);
/// The same into `out` (cleared first), whose capacity a caller that enumerates over and over reuses.
void enumerate_actions(const Spec& spec, const Target& target, std::vector<Action>& out);

/// The action as the REPL and the printer write it, e.g. "tile_out 32 32", "move op0 L1 row" (operands by index:
/// without the Spec the output cannot be told from an input).
std::string action_text(const Action& action);
/// The same naming the moved operand as the Spec's `in<i>` or `out`, e.g. "move in0 L1 row", "move out RF row".
std::string action_text(const Action& action, const Spec& spec);

}  // namespace kriek
