// The IR that reaches kriek's runtime, and what the JIT needs of it: parallel loops call kriek_parallel_for
// (codegen/runtime/kernel_runtime.cpp: its thread team), in the JIT and in objects alike (a library links the
// runtime's object); workspaces come from a runtime buffer per thread in the JIT, from a thread-local of the object
// in a library. No exception crosses a JIT frame: the entry points are noexcept and abort on failure.
#include <cstdio>
#include <cstdlib>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/kernel_runtime.h"
#include "codegen/llvm_ir.h"

namespace {

constexpr const char* kWorkspace = "kriek_jit_workspace";

}  // namespace

extern "C" void* kriek_jit_workspace(std::int64_t bytes) noexcept {
  // A kernel asks for the same size on every call of one invocation, so a pointer it holds is never freed under it.
  struct Buffer {
    void* data = nullptr;
    std::int64_t bytes = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (buffer.bytes < bytes) {
    std::free(buffer.data);
    buffer.data = std::aligned_alloc(kriek::codegen::kWorkspaceAlign,
                                     static_cast<std::size_t>(kriek::codegen::workspace_allocation(bytes)));
    if (!buffer.data) {
      std::fprintf(stderr, "kriek: cannot allocate %lld bytes of kernel workspace\n", static_cast<long long>(bytes));
      std::abort();
    }
    buffer.bytes = bytes;
  }
  return buffer.data;
}

namespace kriek::codegen {

void define_workspace(llvm::Function& f, std::int64_t bytes, IrUse use) {
  llvm::Module& m = *f.getParent();
  llvm::LLVMContext& ctx = f.getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", &f));
  const std::int64_t rounded = (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
  switch (use) {
    case IrUse::jit: {
      b.CreateRet(b.CreateCall(m.getOrInsertFunction(kWorkspace, b.getPtrTy(), b.getInt64Ty()), {b.getInt64(rounded)}));
      return;
    }
    case IrUse::object: {
      // A thread-local pointer, allocated on the thread's first call (as the C backend's workspace function).
      auto* slot = new llvm::GlobalVariable(m, b.getPtrTy(), false, llvm::GlobalValue::InternalLinkage,
                                            llvm::ConstantPointerNull::get(b.getPtrTy()), f.getName() + ".ws", nullptr,
                                            llvm::GlobalValue::GeneralDynamicTLSModel);
      llvm::Value* ws = b.CreateLoad(b.getPtrTy(), slot);
      auto* fresh = llvm::BasicBlock::Create(ctx, "allocate", &f);
      auto* done = llvm::BasicBlock::Create(ctx, "done", &f);
      auto* entry = b.GetInsertBlock();
      b.CreateCondBr(b.CreateIsNull(ws), fresh, done);
      b.SetInsertPoint(fresh);
      auto alloc = m.getOrInsertFunction("aligned_alloc", b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty());
      llvm::Value* made = b.CreateCall(alloc, {b.getInt64(kWorkspaceAlign), b.getInt64(workspace_allocation(bytes))});
      b.CreateStore(made, slot);
      b.CreateBr(done);
      b.SetInsertPoint(done);
      llvm::PHINode* phi = b.CreatePHI(b.getPtrTy(), 2);
      phi->addIncoming(ws, entry);
      phi->addIncoming(made, fresh);
      b.CreateRet(phi);
      return;
    }
  }
}

void call_parallel_for(llvm::IRBuilderBase& b, llvm::Function& body, llvm::Value* context, std::int64_t trips) {
  llvm::Module& m = *body.getParent();
  auto runtime = m.getOrInsertFunction(kParallelForSymbol, b.getVoidTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty());
  b.CreateCall(runtime, {&body, context, b.getInt64(trips)});
}

std::optional<std::string> define_runtime(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap runtime;
  const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  runtime[jit.mangleAndIntern(kWorkspace)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&kriek_jit_workspace), flags);
  runtime[jit.mangleAndIntern(kParallelForSymbol)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&kriek_parallel_for), flags);
  if (auto e = jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    return llvm::toString(std::move(e));
  }
  return std::nullopt;
}

std::optional<LoadedKernel::Threads> jit_threads(bool parallel) {
  if (!parallel) return std::nullopt;
  return LoadedKernel::Threads{[](int n) { kriek_runtime_set_threads(n); }, [] { return kriek_runtime_threads(); }};
}

}  // namespace kriek::codegen
