// The LLVM emitter: spells the lowering's operations (lowering.h) with IRBuilder. Memory buffers are pointers
// into the workspace, register buffers are allocas in the entry block (one <W x float> per vector register, an
// array for scalar registers) that SROA turns into SSA values, loops are counted do-while loops, and a parallel
// nest is outlined into a function of (context, first, end) over the collapsed iterations whose context struct
// carries every live name; kriek's runtime runs it on its threads (codegen/runtime/kernel_runtime.cpp).
// This file holds the emitter's scopes, buffers, kernels and element addresses, and builds the module; its loops
// are in llvm_loops.cpp and its functions (the entry point's, outlined parallel bodies, the workspace function) in
// llvm_functions.cpp, the class that they share in llvm_emitter_impl.h.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <bit>

#include "codegen/llvm_emitter_impl.h"
#include "codegen/vector_isa.h"
#include "impl/printer.h"

namespace kriek::codegen {

IrEmitter::IrEmitter(llvm::LLVMContext& context, llvm::Module& module, const Target& target, const IrCpu& cpu,
                     IrUse use, std::string function)
    : ctx_(context), module_(module), b_(context), cpu_(cpu), use_(use), function_(std::move(function)) {
  const VectorIsa* isa = vector_isa(target);
  width_ = isa ? isa->width : 0;
  // A sum's sign of zero is not part of any Spec's semantics: 0 + x folds to x (accumulators zeroed and then
  // added to start from their first term), as the C backend's -fno-signed-zeros allows.
  llvm::FastMathFlags nsz;
  nsz.setNoSignedZeros();
  b_.setFastMathFlags(nsz);
}

/// Declares the entry point with one noalias pointer per name and starts its body.
void IrEmitter::begin(const std::vector<std::string>& names) {
  std::vector<llvm::Type*> params(names.size(), b_.getPtrTy());
  llvm::Function* f = make_function(function_, llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                    llvm::GlobalValue::ExternalLinkage);
  for (std::size_t i = 0; i < names.size(); ++i) {
    f->getArg(static_cast<unsigned>(i))->setName(names[i]);
    f->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    bind(names[i], f->getArg(static_cast<unsigned>(i)));
  }
  start(f);
}

/// Ends the entry point and defines the workspace function for `bytes` per thread.
void IrEmitter::finish(std::int64_t bytes) {
  end_function();
  if (workspace_fn_ == nullptr) return;
  define_workspace(*workspace_fn_, bytes, use_);
}

std::string IrEmitter::memory_buffer(const std::string& workspace, std::int64_t offset) {
  const std::string name = fresh("b");
  bind(name, b_.CreateConstInBoundsGEP1_64(b_.getFloatTy(), workspace_value(workspace),
                                           static_cast<std::uint64_t>(offset), name));
  return name;
}

std::string IrEmitter::scalar_registers(std::int64_t elements) {
  const std::string name = fresh("r");
  register_depth_[name] = loops_.size();
  llvm::Type* type = llvm::ArrayType::get(b_.getFloatTy(), static_cast<std::uint64_t>(elements));
  llvm::Value* slot = entry_alloca(type, name);
  b_.CreateStore(llvm::Constant::getNullValue(type), slot);
  bind(name, slot);
  return name;
}

std::string IrEmitter::vector_registers(std::int64_t registers) {
  const std::string name = fresh("v");
  register_depth_[name] = loops_.size();
  std::vector<llvm::Value*>& slots = registers_[name];
  for (std::int64_t r = 0; r < registers; ++r) {
    slots.push_back(entry_alloca(vector_type(), name + "_" + std::to_string(r)));
    b_.CreateStore(llvm::Constant::getNullValue(vector_type()), slots.back());
  }
  return name;
}

std::string IrEmitter::thread_workspace() {
  const std::string name = fresh("ws");
  bind(name, b_.CreateCall(workspace_function(), {}, name));
  return name;
}

void IrEmitter::below_or_rest(const Affine& trip, std::int64_t bound, const std::function<void()>& below,
                              const std::function<void()>& rest) {
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  auto* then = llvm::BasicBlock::Create(ctx_, "below", f);
  auto* other = llvm::BasicBlock::Create(ctx_, "rest", f);
  auto* join = llvm::BasicBlock::Create(ctx_, "join", f);
  b_.CreateCondBr(b_.CreateICmpSLT(value(trip), b_.getInt64(bound)), then, other);
  for (auto [block, body] : {std::pair{then, &below}, std::pair{other, &rest}}) {
    b_.SetInsertPoint(block);
    open_scope();
    (*body)();
    close_scope();
    b_.CreateBr(join);
  }
  b_.SetInsertPoint(join);
}

void IrEmitter::kernel(KernelKind k, const Spec& spec, const std::vector<CView>& ops) {
  const CView& out = ops.back();
  const auto made = register_depth_.find(out.base);
  std::vector<std::optional<Affine>> offsets;  // of the operands in memory (nullopt: a blocked layout's)
  for (const CView& op : ops) {
    if (op.storage == Storage::memory) offsets.push_back(affine_offset(op, zeros(op.rank())));
  }
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    Frame& f = loops_[i];
    f.micro_kernel |= k == KernelKind::bcast_fma;
    f.vector |= uses_vector_registers(k);
    if (f.var.empty()) continue;
    // Registers made inside the loop hold one iteration's values: writing them again is no accumulation.
    const bool per_iteration = out.storage != Storage::memory && made != register_depth_.end() && made->second > i;
    f.accumulates |= !per_iteration && !mentions(out.origin, f.var);
    for (const std::optional<Affine>& at : offsets) {
      const std::int64_t step = at ? at->coefficient(f.var) : -1;
      f.strided |= step != 0 && step != 1;
    }
  }
  in_kernel_ = true;
  emit_ir_kernel(*this, k, spec, ops);
  in_kernel_ = false;
}

void IrEmitter::copy(const CView& from, const CView& to) {
  for (Frame& f : loops_) f.vector = true;
  in_kernel_ = true;
  emit_ir_copy(*this, from, to);
  in_kernel_ = false;
}

void IrEmitter::zero(const CView& to) {
  for (Frame& f : loops_) f.vector = true;
  in_kernel_ = true;
  emit_ir_zero(*this, to);
  in_kernel_ = false;
}

std::string IrEmitter::prefetch_counter(const PrefetchPlan&) {
  const std::string name = fresh("pf");
  llvm::Value* slot = entry_alloca(b_.getInt64Ty(), name);
  b_.CreateStore(b_.getInt64(0), slot);
  bind(name, slot);
  return name;
}

/// The plan's step (PrefetchPlan), without a branch: every step fetches the lines of its spacing's group
/// (read; locality 3, into L1, or 2, into L2), then counts up. A step between two due ones fetches the due one's
/// lines again and a step past the last the last lines, both already on their way: an L1 hit's load slot. A
/// branch around the fetches cut an unrolled run of FMA kernels into blocks that LLVM scheduled apart, spilling
/// broadcasts across them: conv[pad=1] 1x14x14x256 3x3x256x256 with packed filters ran at 112-191 GFLOP/s (Zen 5,
/// one core) where the C backend's, the same plan, ran at 232-244. Addresses may lie past the buffer (the tile
/// after the last): no inbounds.
void IrEmitter::prefetch(const PrefetchPlan& p) {
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Value* slot = lookup(p.counter);
  llvm::Value* count = b_.CreateLoad(i64, slot);
  llvm::Function* intrinsic = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {b_.getPtrTy()});
  const auto shift = static_cast<std::uint64_t>(std::countr_zero(static_cast<std::uint64_t>(p.spacing)));
  llvm::Value* first = b_.CreateMul(b_.CreateLShr(count, shift), b_.getInt64(p.per_step));
  llvm::Value* offset = value(p.offset);
  for (std::int64_t q = 0; q < p.per_step; ++q) {
    // Beyond the last line (past the last step, or the last step's extra ones), the last line again.
    llvm::Value* j = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b_.CreateAdd(first, b_.getInt64(q)),
                                              b_.getInt64(p.lines - 1));
    llvm::Value* at = offset;
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      const PrefetchDim& dim = p.dims[d];
      llvm::Value* index = dim.inner > 1 ? b_.CreateUDiv(j, b_.getInt64(dim.inner)) : j;
      if (d > 0) index = b_.CreateURem(index, b_.getInt64(dim.extent));
      at = b_.CreateAdd(at, b_.CreateMul(index, b_.getInt64(dim.stride)));
    }
    llvm::Value* address = b_.CreateGEP(b_.getFloatTy(), lookup(p.base), {at});
    b_.CreateCall(intrinsic, {address, b_.getInt32(0), b_.getInt32(p.into_l1 ? 3 : 2), b_.getInt32(1)});
  }
  b_.CreateStore(b_.CreateAdd(count, b_.getInt64(1)), slot);
}

llvm::Value* IrEmitter::element(const CView& v, const Coord& index) {
  KRIEK_ASSERT(v.storage != Storage::vector_registers, "element access into vector registers ", v.base);
  llvm::Value* offset = nullptr;
  if (const auto a = affine_offset(v, index)) {
    if (llvm::Value* p = induction_address(v.base, *a)) return p;
    offset = value(*a);
  } else {
    const BlockedOffset o = blocked_offset(v, index);
    llvm::Value* c = value(o.coordinate);
    llvm::Value* block = b_.getInt64(o.block);
    llvm::Value* panel = b_.CreateMul(b_.CreateSDiv(c, block), b_.getInt64(o.panel));
    offset = b_.CreateAdd(b_.CreateMul(b_.CreateAdd(panel, value(o.rest)), block), b_.CreateSRem(c, block));
  }
  return b_.CreateInBoundsGEP(b_.getFloatTy(), lookup(v.base), {offset});
}

llvm::Value* IrEmitter::register_slot(const CView& v) {
  const auto it = registers_.find(v.base);
  KRIEK_ASSERT(it != registers_.end(), "no vector registers named ", v.base);
  const std::int64_t r = register_index(v);
  KRIEK_ASSERT(r >= 0 && static_cast<std::size_t>(r) < it->second.size(), "register ", r, " of ", v.base);
  return it->second[static_cast<std::size_t>(r)];
}

/// The value of an affine expression in the loop variables in scope.
llvm::Value* IrEmitter::value(llvm::IRBuilderBase& b, const Affine& a) {
  llvm::Value* sum = nullptr;
  for (const auto& [name, k] : a.terms()) {
    llvm::Value* term = k == 1 ? lookup(name) : b.CreateNSWMul(lookup(name), b.getInt64(k));
    sum = sum ? b.CreateNSWAdd(sum, term) : term;
  }
  if (!sum) return b.getInt64(a.constant());
  return a.constant() == 0 ? sum : b.CreateNSWAdd(sum, b.getInt64(a.constant()));
}

IrModule build_ir_module(llvm::LLVMContext& context, const ImplPtr& impl, const Target& target,
                         const std::string& function, const IrCpu& cpu, IrUse use) {
  check_generable(impl);
  auto module = std::make_unique<llvm::Module>(function, context);
  IrEmitter emitter(context, *module, target, cpu, use, function);
  const std::vector<std::string> names = root_operand_names(impl->spec);
  emitter.begin(names);
  const Lowered lowered = lower(*impl, root_views(impl->spec, names), target, emitter);
  emitter.finish(lowered.workspace_bytes);
  return IrModule{std::move(module), lowered};
}

}  // namespace kriek::codegen
