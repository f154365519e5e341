// C code generation: one self-contained C11 file for a complete Impl, with a plain C entry point taking the root
// Spec's operands as dense row-major float arrays (inputs const, the output last), the Impl tree as a comment
// above it, loops with their boundary tiles, moves as real buffers in their own layouts, register tiles in vector
// variables, and OpenMP pragmas on parallel loops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "impl/node.h"
#include "spec/target.h"

namespace kriek::codegen {

struct CSource {
  std::string code;      ///< the whole C file
  std::string function;  ///< the entry point's name
  /// Bytes of scratch each calling thread allocates once (aligned, kept for the thread's life) for the Impl's
  /// buffers: moves into memory levels, slide windows and pipeline intermediates.
  std::int64_t workspace_bytes = 0;
  bool uses_openmp = false;  ///< the code has parallel loops (compile with -fopenmp)
  /// The entry point's parameter names, one per operand of the root Spec (inputs, then the output).
  std::vector<std::string> parameters;
};

/// The default entry point name for a Spec, e.g. `kriek_matmul_64x32_32x16_f32`.
std::string function_name(const Spec& spec);

/// Emits C for `impl` on `target`. `function` names the entry point (empty: function_name(spec)). A partial Impl
/// is a UserError naming its first hole.
CSource emit_c(const ImplPtr& impl, const Target& target, std::string function = "");

}  // namespace kriek::codegen
