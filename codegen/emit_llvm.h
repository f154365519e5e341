// The LLVM code generator: the same lowering as the C one (lowering.h) built with LLVM's IRBuilder, optimized by
// the O3 pipeline of the new pass manager for the target's CPU, and then JIT-compiled into this process (ORC
// LLJIT, no C compiler needed), written as a position-independent object file, or printed as textual IR. No LLVM
// header is included here: LLVM stays inside codegen/'s llvm_* files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/compile.h"
#include "impl/node.h"
#include "spec/target.h"

namespace kriek::codegen {

/// The CPU LLVM generates code for on `target` (the host's own, or a representative CPU of a named ISA).
std::string llvm_cpu(const Target& target);

/// Textual LLVM IR of `impl` as the lowering builds it (before optimization). `function` names the entry point
/// (empty: function_name(spec)); a partial Impl is a UserError naming its first hole.
std::string emit_llvm_ir(const ImplPtr& impl, const Target& target, std::string function = "");

/// A stable hash of the code of the kernels `impls`, their IR as lowered (entry points named alike): what a
/// measurement of them holds for. A tuned record (cache/tuned.h) keeps it; a kriek whose code generator emits
/// other code for them did not measure them.
std::uint64_t code_hash(const std::vector<ImplPtr>& impls, const Target& target);

/// Writes `impl` as a position-independent ELF object file at `path`, after O3, with the entry point `function`
/// (empty: function_name(spec)) taking dense row-major arrays as the C backend's does. Returns whether it has
/// parallel loops: they call kriek's runtime, which whoever links the object links too (kernel_runtime.h).
bool write_llvm_object(const ImplPtr& impl, const Target& target, const std::filesystem::path& path,
                       std::string function = "");

/// A kernel as write_llvm_object builds it, before any code is generated: what a library's header says of it and
/// the text its object is made from (equal text, equal object: kriek library's object cache is keyed by it).
struct LlvmSource {
  std::string ir;  ///< the module before optimization, with the LLVM version as its first line
  std::string function;
  std::int64_t workspace_bytes = 0;  ///< per calling thread, allocated on its first call
  bool parallel = false;             ///< it calls kriek's runtime (kernel_runtime.h)
  std::vector<std::string> parameters;  ///< one per operand of the root Spec (inputs, then the output)
};
LlvmSource emit_llvm_source(const ImplPtr& impl, const Target& target, std::string function = "");

struct JitKernel {
  LoadedKernel kernel;
  std::string function;
  std::int64_t workspace_bytes = 0;
  bool parallel = false;    ///< it has parallel loops (on kriek's runtime; LoadedKernel::set_threads sizes its team)
  double jit_seconds = 0;   ///< lowering, O3, code generation and linking
};

/// JIT-compiles `impl` into this process. The code lives as long as the returned kernel. Failures (a target this
/// LLVM cannot generate for) are CompileErrors.
JitKernel jit_compile(const ImplPtr& impl, const Target& target, std::string function = "");

/// The peak probe of measure.h as LLVM IR, JIT-compiled: kriek_peak_probe(n, out) runs `chains` independent FMA
/// chains of the target's widest vectors for n iterations.
LoadedKernel jit_peak_probe(const Target& target, int chains);

}  // namespace kriek::codegen
