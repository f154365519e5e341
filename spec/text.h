// The spec text grammar shared by the CLI, the REPL, the table and test files (documented in README.md).
// Long form: `matmul (128x256 f32 GL row, 256x64 f32 GL row -> 128x64 f32 GL row)`; short forms such as
// `matmul 128x256x64 f32` fill in defaults (row-major, GL, aligned, contiguous, the output inferred).
#pragma once

#include <string>
#include <string_view>

#include "spec/spec.h"
#include "spec/target.h"

namespace kriek {

/// Parses long or short spec text and validates the result against `target`. Throws UserError with a
/// one-line message that quotes the text with the offending token marked, e.g.
/// `matmul short form needs MxKxN: matmul >>128x256<< f32`.
Spec parse_spec(std::string_view text, const Target& target);

/// The long form of the Spec; parse_spec of it gives an equal Spec.
std::string spec_text(const Spec& spec);
/// The long form of one operand, e.g. "32x32 f32 VRF row v16".
std::string tensor_text(const TensorSpec& t);
/// The op with its modifiers, e.g. "matmul[acc]", "reducesum[axis=1]", "compose[conv, reducesum[axis=2], conv]".
std::string op_text(const Op& op);
std::string op_text(const PrimitiveOp& op);

}  // namespace kriek
