// Validation of Specs against their op's shape rules and a target. Every failure is a UserError naming values.
#include <sstream>

#include "spec/error.h"
#include "spec/spec.h"
#include "spec/target.h"
#include "spec/text.h"

namespace kriek {
namespace {

void check_tensor(const TensorSpec& t, std::size_t i, const Target& target) {
  if (t.dtype != Dtype::f32) {
    user_error("operand ", i, " has dtype ", dtype_name(t.dtype), ", which is not supported yet (only f32)");
  }
  std::int64_t elements = 1;
  for (auto e : t.shape) {
    if (e < 1) user_error("operand ", i, " has extent ", e, "; extents must be at least 1");
    if (e > (std::int64_t{1} << 31) - 1) user_error("operand ", i, " has extent ", e, "; at most 2^31-1 is allowed");
    elements *= e;
    if (elements > (std::int64_t{1} << 48)) {
      user_error("operand ", i, " of shape ", shape_text(t.shape), " has over 2^48 elements");
    }
  }
  if (!target.has_level(t.level)) user_error("operand ", i, " is in ", level_name(t.level), ", which target ", target.name, " does not have");
  if (t.layout.kind == Layout::Kind::blocked && (t.layout.dim >= t.rank() || t.layout.block < 1)) {
    user_error("operand ", i, " has layout ", layout_text(t.layout), ", invalid for rank ", t.rank());
  }
  if (t.layout.kind == Layout::Kind::col_major && t.rank() < 2) {
    user_error("operand ", i, " is column-major but has rank ", t.rank());
  }
  if (t.run_dims != 1 && (t.contiguous || t.layout.kind != Layout::Kind::row_major || t.run_dims < 1 ||
                         t.run_dims >= t.rank())) {
    user_error("operand ", i, " has runs over ", int(t.run_dims), " dimensions (strided:", int(t.run_dims),
               "); only a strided row-major operand's runs span 2 to rank - 1 = ", t.rank() - 1, " dimensions");
  }
  const std::uint32_t width = target.vector_elements(t.dtype);
  if (t.level == Level::VRF) {
    if (t.vector_size != width) {
      user_error("operand ", i, " in VRF has vector size ", t.vector_size, "; target ", target.name, " holds ", width,
                 " f32 per register");
    }
    if (t.rank() == 0 || t.shape.back() % width != 0) {
      user_error("operand ", i, " in VRF has rows of ", t.rank() ? t.shape.back() : 0, " elements, not whole vectors of ",
                 width);
    }
  } else if (t.vector_size != 0) {
    user_error("operand ", i, " has vector size ", t.vector_size, " but is in ", level_name(t.level), ", not VRF");
  }
  const LevelInfo& level = target.level(t.level);
  if (level.capacity > 0 && t.bytes() > level.capacity) {
    user_error("operand ", i, " takes ", t.bytes(), " bytes but ", level_name(t.level), " holds ", level.capacity);
  }
}

}  // namespace

void validate(const Spec& spec, const Target& target) {
  if (const auto* c = std::get_if<Compose>(&spec.op)) {
    if (c->stages.size() < 2) user_error("compose needs at least 2 stages, got ", c->stages.size());
    for (std::size_t i = 0; i + 1 < c->stages.size(); ++i) {
      if (accumulates(c->stages[i])) user_error("compose stage ", i, " accumulates; only the last stage may");
    }
  }
  const std::size_t want = input_count(spec.op) + 1;
  if (spec.operands.size() != want) {
    user_error(op_word(spec.op), " takes ", want - 1, " inputs and an output, got ", spec.operands.size(), " operands");
  }
  for (std::size_t i = 0; i < spec.operands.size(); ++i) check_tensor(spec.operands[i], i, target);
  if (std::holds_alternative<Zero>(spec.op)) return;
  std::vector<Shape> inputs;
  for (const TensorSpec& t : spec.inputs()) inputs.push_back(t.shape);
  const Shape expected = infer_output_shape(spec.op, inputs);
  if (expected != spec.output().shape) {
    std::ostringstream want_s, got_s;
    print_shape(want_s, expected);
    print_shape(got_s, spec.output().shape);
    user_error(op_word(spec.op), " of these inputs gives a ", want_s.str(), " output, not ", got_s.str());
  }
}

}  // namespace kriek
