// The LLVM emitter's loops (llvm_emitter_impl.h): the lowering's loops opened and closed as counted do-while loops
// or as the loops of a collapsed parallel nest (outlined by llvm_functions.cpp), the pointers that advance with the
// innermost loop in place of an index register, and whether LLVM may unroll each loop (its latch's metadata).
#include "codegen/llvm_emitter_impl.h"

namespace kriek::codegen {

void IrEmitter::parallel(const std::vector<std::int64_t>& trips) {
  KRIEK_ASSERT(collapsed_.empty() && collapsed_vars_.empty(), "a parallel nest inside the loops of another");
  collapsed_ = trips;
}

Affine IrEmitter::open_loop(std::int64_t trips) {
  scopes_.push_back(defined_.size());
  if (!collapsed_.empty()) {  // the first loop of a parallel nest
    KRIEK_ASSERT(collapsed_.front() == trips, "a parallel loop of ", trips, " iterations announced as ",
                 collapsed_.front());
    loops_.push_back(Frame{LoopKind::parallel, trips});
    outline();
    return pop_front(collapsed_vars_);
  }
  if (!collapsed_vars_.empty()) {  // an inner loop of the collapsed nest: its variable is already known
    loops_.push_back(Frame{LoopKind::collapsed, trips});
    return pop_front(collapsed_vars_);
  }
  loops_.push_back(Frame{LoopKind::serial, trips, in_kernel_});
  Affine var = counted_loop(b_.getInt64(0), b_.getInt64(trips));
  loops_.back().var = var.terms().front().first;
  return var;
}

void IrEmitter::close_loop() {
  const Frame frame = pop(loops_);
  unbind_to(pop(scopes_));
  switch (frame.kind) {
    case LoopKind::serial: return close_counted_loop(unroll(frame));
    case LoopKind::collapsed: return;
    case LoopKind::parallel: return end_outline(unroll(frame));
  }
}

/// Whether LLVM may unroll a loop. The Impl's loops stay as the Impl says (the lowering unrolls register axes
/// itself), except short ones (at most kUnrollTrips) around the micro-kernel: a conv's taps, which rolled ran
/// conv 1x30x30x8 3x3x8x8 at 0.66x C and unrolled at 1.0x. Longer ones unrolled had LLVM hoist every filter
/// vector of a conv's channel loop out of the tile loop, spill them and chain each accumulator's FMAs (0.45x
/// C); elementwise loops unrolled had it hoist a broadcast row's 32 vectors out of the row loop and spill them
/// (add 256x256 1x256: 0.83x C). Loops inside kernels (a dot product's stream, copies) LLVM may unroll, and
/// Impl loops of scalar kernels only (nothing to hoist into registers), unless LLVM's loop vectorizer could
/// take them (distinct outputs, every access invariant or unit-stride), which its early full unrolling would
/// pre-empt: a scalar reduction's 13-element tail rolled ran reducesum[axis=1] 67x45 at 0.51x C on AVX-512
/// (its loops accumulate, or read rows 45 apart); the rank-2 conv 30x30 3x3x8's loop over 8 output channels
/// unrolled became 4-wide SLP code with spills, 0.28-0.33x C, and rolled it is vectorized.
IrEmitter::Unroll IrEmitter::unroll(const Frame& f) {
  const bool vectorizable = !f.accumulates && !f.strided;
  const bool allowed = f.kernel || (!f.vector && !vectorizable) || (f.micro_kernel && f.trips <= kUnrollTrips);
  return allowed ? Unroll::allowed : Unroll::disabled;
}

/// True when the value named `name` is available before the innermost open loop starts: it was bound before
/// the loop opened (the lowering binds in scopes, so such a value dominates the loop's preheader).
bool IrEmitter::bound_before_innermost(const std::string& name) const {
  const Loop& l = open_.back();
  return std::find(defined_.begin() + static_cast<std::ptrdiff_t>(l.bound), defined_.end(), name) == defined_.end();
}

/// The address base + `a` as a pointer that advances with the innermost open loop, when `a` moves with that
/// loop's variable and its other terms and the base are available before the loop; else nullptr. Accesses
/// then address base-only (`disp(%reg)`): with the loop counter as an index register, which LLVM's loop
/// strength reduction otherwise chooses, Intel cores split each FMA with a memory operand into two uops
/// (matmul 64^3 ran at 0.73x the C backend's speed on a Sapphire Rapids VM). The JIT's code generation runs
/// without loop strength reduction (llvm_jit.cpp), which would fold these pointers back into the counter.
llvm::Value* IrEmitter::induction_address(const std::string& base, const Affine& a) {
  if (open_.empty()) return nullptr;
  Loop& l = open_.back();
  const auto& terms = a.terms();
  const auto moving = std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.first == l.name; });
  if (moving == terms.end() || !bound_before_innermost(base)) return nullptr;
  const std::int64_t step = moving->second;
  Affine rest(0);
  std::string key = base + "|" + std::to_string(step) + "|";
  for (const auto& [name, k] : terms) {
    if (name == l.name) continue;
    if (!bound_before_innermost(name)) return nullptr;
    rest = rest + Affine::variable(name) * k;
    key += name + "*" + std::to_string(k) + ";";
  }
  auto it = l.pointers.find(key);
  if (it == l.pointers.end()) {
    llvm::IRBuilder<> pre(l.preheader->getTerminator());
    llvm::Value* first = pre.CreateInBoundsGEP(pre.getFloatTy(), lookup(base), {value(pre, rest)});
    llvm::IRBuilder<> head(l.header, l.header->begin());
    llvm::PHINode* phi = head.CreatePHI(head.getPtrTy(), 2, base + ".p");
    phi->addIncoming(first, l.preheader);
    it = l.pointers.emplace(key, PointerInduction{phi, step}).first;
  }
  llvm::PHINode* pointer = it->second.pointer;
  return a.constant() == 0 ? pointer : b_.CreateInBoundsGEP(b_.getFloatTy(), pointer, {b_.getInt64(a.constant())});
}

Affine IrEmitter::counted_loop(llvm::Value* first, llvm::Value* end) {
  llvm::BasicBlock* before = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, "loop", before->getParent());
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* phi = b_.CreatePHI(b_.getInt64Ty(), 2);
  phi->addIncoming(first, before);
  const std::string var = fresh("i");
  phi->setName(var);
  const std::size_t bound = defined_.size();
  bind(var, phi);
  open_.push_back(Loop{header, phi, end, var, before, bound, {}});
  return Affine::variable(var);
}

void IrEmitter::close_counted_loop(Unroll unroll) {
  const Loop l = pop(open_);
  for (const auto& [key, p] : l.pointers) {
    p.pointer->addIncoming(b_.CreateInBoundsGEP(b_.getFloatTy(), p.pointer, {b_.getInt64(p.step)}),
                           b_.GetInsertBlock());
  }
  llvm::Value* next = b_.CreateNSWAdd(l.variable, b_.getInt64(1));
  l.variable->addIncoming(next, b_.GetInsertBlock());
  auto* exit = llvm::BasicBlock::Create(ctx_, "after", b_.GetInsertBlock()->getParent());
  llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, l.end), l.header, exit);
  switch (unroll) {
    case Unroll::allowed: break;
    case Unroll::disabled: {
      // !llvm.loop !{self, !{"llvm.loop.unroll.disable"}}
      llvm::Metadata* disable = llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.unroll.disable"));
      llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx_, {nullptr, disable});
      loop->replaceOperandWith(0, loop);
      latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
      break;
    }
  }
  b_.SetInsertPoint(exit);
}

}  // namespace kriek::codegen
