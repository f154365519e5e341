// kriek's runtime for JIT-compiled kernels, and the IR that reaches it. Parallel loops run on TBB, which kriek
// links already for its search: a kernel needs no OpenMP runtime (libgomp ships with the C compiler this backend
// must not need), and TBB's static partitioner gives each thread one contiguous range of the collapsed iterations,
// as OpenMP's schedule(static) does; --run-threads sizes a task arena. Workspaces are one buffer per thread, grown
// to the largest asked for. No exception crosses a JIT frame: the entry points are noexcept and abort on failure.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "codegen/llvm_ir.h"

namespace {

std::atomic<int> team_size{0};  // 0: every core TBB may use

constexpr const char* kWorkspace = "kriek_jit_workspace";
constexpr const char* kParallelFor = "kriek_jit_parallel_for";

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
    buffer.data = std::aligned_alloc(kriek::codegen::kBufferAlign, static_cast<std::size_t>(bytes));
    if (!buffer.data) {
      std::fprintf(stderr, "kriek: cannot allocate %lld bytes of kernel workspace\n", static_cast<long long>(bytes));
      std::abort();
    }
    buffer.bytes = bytes;
  }
  return buffer.data;
}

extern "C" void kriek_jit_parallel_for(void (*body)(void*, std::int64_t, std::int64_t), void* context,
                                       std::int64_t trips) noexcept {
  auto run = [&] {
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, trips),
        [&](const tbb::blocked_range<std::int64_t>& r) { body(context, r.begin(), r.end()); },
        tbb::static_partitioner());
  };
  try {
    const int threads = team_size.load();
    if (threads <= 0) return run();
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
    tbb::task_arena* arena = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto& a = arenas[threads];
      if (!a) a = std::make_unique<tbb::task_arena>(threads);
      arena = a.get();
    }
    arena->execute(run);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kriek: a parallel loop failed: %s\n", e.what());
    std::abort();
  }
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
      llvm::Value* made = b.CreateCall(alloc, {b.getInt64(kBufferAlign), b.getInt64(rounded)});
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
  auto runtime = m.getOrInsertFunction(kParallelFor, b.getVoidTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty());
  b.CreateCall(runtime, {&body, context, b.getInt64(trips)});
}

std::optional<std::string> define_runtime(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap runtime;
  const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  runtime[jit.mangleAndIntern(kWorkspace)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&kriek_jit_workspace), flags);
  runtime[jit.mangleAndIntern(kParallelFor)] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&kriek_jit_parallel_for), flags);
  if (auto e = jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    return llvm::toString(std::move(e));
  }
  return std::nullopt;
}

std::optional<LoadedKernel::Threads> jit_threads(bool parallel) {
  if (!parallel) return std::nullopt;
  return LoadedKernel::Threads{
      [](int n) { team_size = n; },
      [] { return team_size > 0 ? team_size.load() : tbb::this_task_arena::max_concurrency(); }};
}

}  // namespace kriek::codegen
