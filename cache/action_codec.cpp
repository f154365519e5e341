// Action tags: each alternative is identified by its own constant, never by its position in the variant.
#include "cache/action_codec.h"

#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include "impl/memory.h"
#include "sched/canonical.h"
#include "sched/enumerate.h"
#include "spec/stable_hash.h"
#include "spec/error.h"
#include "spec/overloaded.h"

namespace kriek {
namespace {

// Stable tags. Never renumber; a changed field list gets a new version (and a reader for the old one, or a
// format bump). Every alternative of Action must appear here and in both visitors below.
enum class ActionTag : std::uint16_t {
  tile_out = 1,
  split = 2,
  slide = 3,
  move_to = 4,
  to_accum = 5,
  bufferize = 6,
  select = 7,
  to_matmul = 8,
  pad_image = 9,
  flatten = 10,
  split_taps = 11,
};
/// 2: split has a reduction axis (conv filter taps), to_matmul and pad_image exist. 3: pad_image zeroes only the
/// border of its buffer (a Zero child per strip instead of one of the whole buffer).
constexpr std::uint8_t kActionVersion = 3;
static_assert(std::variant_size_v<Action> == 11,
              "a new Action alternative needs a tag in cache/action_codec.cpp (and the format version bumped)");

void tag(ByteWriter& ar, ActionTag t) { ar(static_cast<std::uint16_t>(t), kActionVersion); }

}  // namespace

// The fields are listed here, not taken from the structs' serialize members: this file is the format's
// definition, and a struct that gains a field must get a new version here.
void save_action(ByteWriter& ar, const Action& action) {
  std::visit(overloaded{[&](const TileOut& a) { tag(ar, ActionTag::tile_out), ar(a.tile, a.parallel); },
                        [&](const Split& a) { tag(ar, ActionTag::split), ar(a.k, a.axis); },
                        [&](const Slide& a) { tag(ar, ActionTag::slide), ar(a.dim, a.size, a.level, a.layout); },
                        [&](const MoveTo& a) {
                          tag(ar, ActionTag::move_to), ar(a.operand, a.level, a.layout, a.vector_size, a.copy);
                        },
                        [&](const ToAccum&) { tag(ar, ActionTag::to_accum); },
                        [&](const Bufferize& a) { tag(ar, ActionTag::bufferize), ar(a.cut, a.level, a.layout); },
                        [&](const ToMatmul&) { tag(ar, ActionTag::to_matmul); },
                        [&](const PadImage& a) { tag(ar, ActionTag::pad_image), ar(a.level, a.layout); },
                        [&](const SplitTaps& a) { tag(ar, ActionTag::split_taps), ar(a.dim); },
                        [&](const Select& a) { tag(ar, ActionTag::select), ar(a.kernel); },
                        [&](const Flatten&) { tag(ar, ActionTag::flatten); }},
             action);
}

Action load_action(cereal::BinaryInputArchive& ar) {
  std::uint16_t t = 0;
  std::uint8_t version = 0;
  ar(t, version);
  if (version != kActionVersion) {
    user_error("the table stores action tag ", t, " in version ", int(version), " but this kriek reads version ",
               int(kActionVersion), ": rebuild the table (delete it and run kriek synth again)");
  }
  switch (static_cast<ActionTag>(t)) {
    case ActionTag::tile_out: {
      TileOut a;
      ar(a.tile, a.parallel);
      return a;
    }
    case ActionTag::split: {
      Split a;
      ar(a.k, a.axis);
      return a;
    }
    case ActionTag::slide: {
      Slide a;
      ar(a.dim, a.size, a.level, a.layout);
      return a;
    }
    case ActionTag::move_to: {
      MoveTo a;
      ar(a.operand, a.level, a.layout, a.vector_size, a.copy);
      return a;
    }
    case ActionTag::to_accum: return ToAccum{};
    case ActionTag::bufferize: {
      Bufferize a;
      ar(a.cut, a.level, a.layout);
      return a;
    }
    case ActionTag::to_matmul: return ToMatmul{};
    case ActionTag::flatten: return Flatten{};
    case ActionTag::pad_image: {
      PadImage a;
      ar(a.level, a.layout);
      return a;
    }
    case ActionTag::split_taps: {
      SplitTaps a;
      ar(a.dim);
      return a;
    }
    case ActionTag::select: {
      Select a;
      ar(a.kernel);
      return a;
    }
  }
  user_error("the table stores an action with unknown tag ", t,
             ": it was written by another kriek; rebuild the table (delete it and run kriek synth again)");
}

const std::string& vocabulary_schema() {
  static const std::string schema = [] {
    std::string s = "ops=";
    const Op ops[] = {Matmul{}, Conv{}, Move{}, Zero{}, Unary{}, Binary{}, ReduceSum{}, Compose{}};
    static_assert(std::variant_size_v<Op> == 8, "a new op kind must be listed in the table's vocabulary schema");
    for (const Op& op : ops) s += std::string(op_word(op)) + "@" + std::to_string(op.index()) + ",";
    s += ";unary=" + std::string(unary_op_name(UnaryOp::relu));
    static_assert(kAllUnaryOps.size() == 1, "list every unary op here (and bump the vocabulary's readers)");
    s += ";binary=";
    for (BinaryOp b : kAllBinaryOps) {
      s += std::string(binary_op_name(b)) + "@" + std::to_string(static_cast<int>(b)) + ",";
    }
    s += ";dtypes=";
    for (Dtype d : kAllDtypes) {
      s += std::string(dtype_name(d)) + "@" + std::to_string(static_cast<int>(d)) + ",";
    }
    s += ";levels=";
    for (Level l : kAllLevels) {
      s += std::string(level_name(l)) + "@" + std::to_string(static_cast<int>(l)) + ",";
    }
    s += ";layouts=row@0,col@1,blk@2";
    static_assert(static_cast<int>(Layout::Kind::blocked) == 2, "layout kinds were renumbered");
    s += ";kernels=";
    for (KernelKind k : kAllKernels) s += std::string(kernel_name(k)) + ",";
    s += ";actions=tile_out@1,split@2,slide@3,move_to@4,to_accum@5,bufferize@6,select@7,to_matmul@8,pad_image@9,flatten@10,"
         "split_taps@11;action_version=" +
         std::to_string(kActionVersion);
    s += ";canonical=" + std::to_string(kCanonicalRulesVersion) +
         ",parallel_min=" + std::to_string(static_cast<std::int64_t>(kParallelMinFlops)) +
         ",parallel_min_elements=" + std::to_string(kParallelMinElements) +
         ";enumerate=" + std::to_string(kEnumerateVersion) + ";classes=v" + std::to_string(kClassRulesVersion) + ":";
    for (Level l : kAllLevels) s += std::to_string(kSmallestClass[static_cast<std::size_t>(l)]) + ",";
    s += ";register_classes=" + std::to_string(kRegistersByPresence);
    return s;
  }();
  return schema;
}

std::uint64_t vocabulary_fingerprint() { return stable_hash(vocabulary_schema()); }

}  // namespace kriek
