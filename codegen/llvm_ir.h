// Private to codegen/'s LLVM translation units: what the LLVM kernels (llvm_kernels.cpp, llvm_sums.cpp) need of the
// LLVM emitter (llvm_emitter.cpp), the module the emitter builds for the JIT and object writer (llvm_jit.cpp), and
// kriek's runtime that JIT-compiled code calls (llvm_runtime.cpp). It names LLVM types by forward declaration only,
// so no LLVM header reaches anything that includes it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/c_view.h"
#include "codegen/compile.h"
#include "codegen/lowering.h"
#include "impl/kernel.h"
#include "impl/node.h"
#include "spec/spec.h"
#include "spec/target.h"

namespace llvm {
class Function;
class IRBuilderBase;
class LLVMContext;
class Module;
class Type;
class Value;
namespace orc {
class LLJIT;
}  // namespace orc
}  // namespace llvm

namespace kriek::codegen {

/// The emitter's services to kernels: the builder at the current point, element and register addresses of views,
/// and counted loops.
class IrKernelContext {
 public:
  virtual ~IrKernelContext() = default;
  virtual llvm::IRBuilderBase& builder() = 0;
  /// f32 lanes per vector register (0 on scalar targets).
  virtual int width() const = 0;
  /// A pointer to one element of a memory or scalar-register view.
  virtual llvm::Value* element(const CView& v, const Coord& index) = 0;
  /// A pointer to the vector register that holds exactly the view's elements (register_index's).
  virtual llvm::Value* register_slot(const CView& v) = 0;
  /// The value of an affine expression in the loop variables in scope (i64).
  virtual llvm::Value* index(const Affine& a) = 0;
  /// A stack slot of `type` for the function being emitted (an entry-block alloca, promoted to registers).
  virtual llvm::Value* slot(llvm::Type* type) = 0;
  /// A loop of `trips` iterations (at least 1); returns its variable.
  virtual Affine open_loop(std::int64_t trips) = 0;
  virtual void close_loop() = 0;
};

/// Emits kernel `k` implementing `spec` on `ops` (inputs, then the output).
void emit_ir_kernel(IrKernelContext& c, KernelKind k, const Spec& spec, const std::vector<CView>& ops);
/// Emits loops copying every element of `from` to `to` (equal shapes), dimension by dimension in increasing order.
void emit_ir_copy(IrKernelContext& c, const CView& from, const CView& to);
/// Zeroes every element of `to`.
void emit_ir_zero(IrKernelContext& c, const CView& to);

/// How the module is meant to run.
enum class IrUse : std::uint8_t {
  jit,     ///< in this process: the workspace comes from kriek's runtime (llvm_runtime.cpp)
  object,  ///< linked into a library: the workspace is a thread-local of the object
};

/// The CPU a Target's code is generated for, with its features ("" for the CPU's own) and vector width in bits.
struct IrCpu {
  std::string cpu;
  std::string features;
  int vector_bits = 0;
};

struct IrModule {
  std::unique_ptr<llvm::Module> module;
  Lowered lowered;
};

/// The module of one kernel: the entry point `function(ptr noalias, ...)` (inputs, then the output) and its
/// workspace function, for `cpu`.
IrModule build_ir_module(llvm::LLVMContext& context, const ImplPtr& impl, const Target& target,
                         const std::string& function, const IrCpu& cpu, IrUse use);

// --- kriek's runtime for JIT-compiled kernels (llvm_runtime.cpp).

/// Defines `f`, a kernel's `() -> ptr` workspace function, for `bytes` per thread: through the runtime (jit), or
/// as a thread-local buffer of the object allocated on the thread's first call (object).
void define_workspace(llvm::Function& f, std::int64_t bytes, IrUse use);
/// Calls the runtime's parallel loop (kriek_parallel_for, kernel_runtime.h): `body(context, first, end)` over
/// [0, trips), from the builder's point.
void call_parallel_for(llvm::IRBuilderBase& b, llvm::Function& body, llvm::Value* context, std::int64_t trips);
/// Makes the runtime's entry points visible to code `jit` links; the error's text otherwise.
std::optional<std::string> define_runtime(llvm::orc::LLJIT& jit);
/// How a JIT-compiled kernel's parallel loops are sized (nullopt when it has none).
std::optional<LoadedKernel::Threads> jit_threads(bool parallel);

}  // namespace kriek::codegen
