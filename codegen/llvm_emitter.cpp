// The LLVM emitter: spells the lowering's operations (lowering.h) with IRBuilder. Memory buffers are pointers
// into the workspace, register buffers are allocas in the entry block (one <W x float> per vector register, an
// array for scalar registers) that SROA turns into SSA values, loops are counted do-while loops, and a parallel
// nest is outlined into a function of (context, first, end) over the collapsed iterations whose context struct
// carries every live name; kriek's runtime runs it on its threads (codegen/runtime/kernel_runtime.cpp).
#include <algorithm>
#include <map>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/llvm_ir.h"
#include "codegen/vector_isa.h"
#include "impl/printer.h"
#include "spec/error.h"

namespace kriek::codegen {
namespace {

class IrEmitter final : public Emitter, public IrKernelContext {
 public:
  IrEmitter(llvm::LLVMContext& context, llvm::Module& module, const Target& target, const IrCpu& cpu, IrUse use,
            std::string function)
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
  void begin(const std::vector<std::string>& names) {
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
  void finish(std::int64_t bytes) {
    end_function();
    if (workspace_fn_ == nullptr) return;
    define_workspace(*workspace_fn_, bytes, use_);
  }

  // --- Emitter.

  void open_scope() override { scopes_.push_back(defined_.size()); }
  void close_scope() override { unbind_to(pop(scopes_)); }

  std::string memory_buffer(const std::string& workspace, std::int64_t offset) override {
    const std::string name = fresh("b");
    bind(name, b_.CreateConstInBoundsGEP1_64(b_.getFloatTy(), workspace_value(workspace),
                                             static_cast<std::uint64_t>(offset), name));
    return name;
  }
  std::string scalar_registers(std::int64_t elements) override {
    const std::string name = fresh("r");
    register_depth_[name] = loops_.size();
    llvm::Type* type = llvm::ArrayType::get(b_.getFloatTy(), static_cast<std::uint64_t>(elements));
    llvm::Value* slot = entry_alloca(type, name);
    b_.CreateStore(llvm::Constant::getNullValue(type), slot);
    bind(name, slot);
    return name;
  }
  std::string vector_registers(std::int64_t registers) override {
    const std::string name = fresh("v");
    register_depth_[name] = loops_.size();
    std::vector<llvm::Value*>& slots = registers_[name];
    for (std::int64_t r = 0; r < registers; ++r) {
      slots.push_back(entry_alloca(vector_type(), name + "_" + std::to_string(r)));
      b_.CreateStore(llvm::Constant::getNullValue(vector_type()), slots.back());
    }
    return name;
  }

  void parallel(const std::vector<std::int64_t>& trips) override {
    KRIEK_ASSERT(collapsed_.empty() && collapsed_vars_.empty(), "a parallel nest inside the loops of another");
    collapsed_ = trips;
  }

  Affine open_loop(std::int64_t trips) override {
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

  void close_loop() override {
    const Frame frame = pop(loops_);
    unbind_to(pop(scopes_));
    switch (frame.kind) {
      case LoopKind::serial: return close_counted_loop(unroll(frame));
      case LoopKind::collapsed: return;
      case LoopKind::parallel: return end_outline(unroll(frame));
    }
  }

  std::string thread_workspace() override {
    const std::string name = fresh("ws");
    bind(name, b_.CreateCall(workspace_function(), {}, name));
    return name;
  }

  void first_or_rest(const Affine& trip, const std::function<void()>& first,
                     const std::function<void()>& rest) override {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto* then = llvm::BasicBlock::Create(ctx_, "first", f);
    auto* other = llvm::BasicBlock::Create(ctx_, "rest", f);
    auto* join = llvm::BasicBlock::Create(ctx_, "join", f);
    b_.CreateCondBr(b_.CreateICmpEQ(value(trip), b_.getInt64(0)), then, other);
    for (auto [block, body] : {std::pair{then, &first}, std::pair{other, &rest}}) {
      b_.SetInsertPoint(block);
      open_scope();
      (*body)();
      close_scope();
      b_.CreateBr(join);
    }
    b_.SetInsertPoint(join);
  }

  void kernel(KernelKind k, const Spec& spec, const std::vector<CView>& ops) override {
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
        const std::int64_t step = at ? coefficient(*at, f.var) : -1;
        f.strided |= step != 0 && step != 1;
      }
    }
    in_kernel_ = true;
    emit_ir_kernel(*this, k, spec, ops);
    in_kernel_ = false;
  }
  void copy(const CView& from, const CView& to) override {
    for (Frame& f : loops_) f.vector = true;
    in_kernel_ = true;
    emit_ir_copy(*this, from, to);
    in_kernel_ = false;
  }

  // --- IrKernelContext.

  llvm::IRBuilderBase& builder() override { return b_; }
  int width() const override { return width_; }

  llvm::Value* element(const CView& v, const Coord& index) override {
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

  llvm::Value* index(const Affine& a) override { return value(a); }
  llvm::Value* slot(llvm::Type* type) override { return entry_alloca(type, ""); }

  llvm::Value* register_slot(const CView& v) override {
    const auto it = registers_.find(v.base);
    KRIEK_ASSERT(it != registers_.end(), "no vector registers named ", v.base);
    const std::int64_t r = register_index(v);
    KRIEK_ASSERT(r >= 0 && static_cast<std::size_t>(r) < it->second.size(), "register ", r, " of ", v.base);
    return it->second[static_cast<std::size_t>(r)];
  }

 private:
  enum class LoopKind : std::uint8_t { serial, collapsed, parallel };
  struct Frame {
    LoopKind kind;
    std::int64_t trips = 0;
    bool kernel = false;        ///< a loop inside a kernel or copy, not one of the Impl's
    bool micro_kernel = false;  ///< its body calls bcast_fma
    bool vector = false;        ///< its body uses vector registers or copies (which LLVM vectorizes)
    /// Some kernel of its body writes an output that does not move with the loop: its iterations accumulate
    /// into the same elements (a split), a chain no vectorizer breaks without reassociating.
    bool accumulates = false;
    /// Some kernel of its body reads or writes memory that moves by more than one element per iteration (or by
    /// a blocked layout's steps): the loop vectorizer would need gathers.
    bool strided = false;
    std::string var = {};  ///< the loop's variable (serial loops)
  };
  /// The coefficient of `var` in `a` (0 without a term in it).
  static std::int64_t coefficient(const Affine& a, const std::string& var) {
    for (const auto& [name, k] : a.terms()) {
      if (name == var) return k;
    }
    return 0;
  }
  /// True when some coordinate of `origin` has a term in `var`.
  static bool mentions(const Coord& origin, const std::string& var) {
    return std::any_of(origin.begin(), origin.end(), [&](const Affine& a) { return coefficient(a, var) != 0; });
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
  enum class Unroll : std::uint8_t { allowed, disabled };
  static constexpr std::int64_t kUnrollTrips = 4;
  static Unroll unroll(const Frame& f) {
    const bool vectorizable = !f.accumulates && !f.strided;
    const bool allowed = f.kernel || (!f.vector && !vectorizable) || (f.micro_kernel && f.trips <= kUnrollTrips);
    return allowed ? Unroll::allowed : Unroll::disabled;
  }
  /// A function being emitted: its entry block holds the allocas (and the root workspace) and falls through to the
  /// body once the function ends.
  struct FunctionState {
    llvm::Function* f = nullptr;
    llvm::BasicBlock* entry = nullptr;
    llvm::BasicBlock* body = nullptr;
    std::map<std::string, llvm::Value*> names;  ///< the names of the enclosing function, restored at its end
    llvm::BasicBlock* resume = nullptr;         ///< where the enclosing function continues
    llvm::Value* context = nullptr;             ///< the enclosing function's context struct
    std::int64_t trips = 0;                     ///< iterations of the collapsed nest
    llvm::Function* runtime_body = nullptr;     ///< what the runtime calls: loads the context, calls f
    std::map<std::string, std::vector<llvm::Value*>> registers;  ///< the enclosing function's register slots
  };
  /// A pointer that advances with a loop: base + (the offset's terms in outer variables) + step * the loop's
  /// variable, kept in a phi of the loop's header.
  struct PointerInduction {
    llvm::PHINode* pointer;
    std::int64_t step;
  };
  struct Loop {
    llvm::BasicBlock* header;
    llvm::PHINode* variable;
    llvm::Value* end;
    std::string name;              ///< the variable's name in scope
    llvm::BasicBlock* preheader;   ///< ends in the branch to `header`
    std::size_t bound;             ///< defined_.size() when the loop opened: names bound later are its own
    std::map<std::string, PointerInduction> pointers;  ///< by base and outer terms
  };

  template <class T>
  static T pop(std::vector<T>& v) {
    KRIEK_ASSERT(!v.empty(), "unbalanced lowering");
    T t = v.back();
    v.pop_back();
    return t;
  }
  static Affine pop_front(std::vector<Affine>& v) {
    Affine a = v.front();
    v.erase(v.begin());
    return a;
  }

  std::string fresh(const std::string& prefix) { return prefix + std::to_string(next_++); }
  llvm::Type* vector_type() {
    KRIEK_ASSERT(width_ > 0, "vector registers on a scalar target");
    return llvm::FixedVectorType::get(b_.getFloatTy(), static_cast<unsigned>(width_));
  }

  void bind(const std::string& name, llvm::Value* v) {
    names_[name] = v;
    defined_.push_back(name);
  }
  void unbind_to(std::size_t mark) {
    while (defined_.size() > mark) {
      names_.erase(defined_.back());
      defined_.pop_back();
    }
  }
  llvm::Value* lookup(const std::string& name) {
    const auto it = names_.find(name);
    KRIEK_ASSERT(it != names_.end(), "no value named ", name, " in scope");
    return it->second;
  }

  /// The value of an affine expression in the loop variables in scope.
  llvm::Value* value(const Affine& a) { return value(b_, a); }
  llvm::Value* value(llvm::IRBuilderBase& b, const Affine& a) {
    llvm::Value* sum = nullptr;
    for (const auto& [name, k] : a.terms()) {
      llvm::Value* term = k == 1 ? lookup(name) : b.CreateNSWMul(lookup(name), b.getInt64(k));
      sum = sum ? b.CreateNSWAdd(sum, term) : term;
    }
    if (!sum) return b.getInt64(a.constant());
    return a.constant() == 0 ? sum : b.CreateNSWAdd(sum, b.getInt64(a.constant()));
  }

  /// True when the value named `name` is available before the innermost open loop starts: it was bound before
  /// the loop opened (the lowering binds in scopes, so such a value dominates the loop's preheader).
  bool bound_before_innermost(const std::string& name) const {
    const Loop& l = open_.back();
    return std::find(defined_.begin() + static_cast<std::ptrdiff_t>(l.bound), defined_.end(), name) == defined_.end();
  }

  /// The address base + `a` as a pointer that advances with the innermost open loop, when `a` moves with that
  /// loop's variable and its other terms and the base are available before the loop; else nullptr. Accesses
  /// then address base-only (`disp(%reg)`): with the loop counter as an index register, which LLVM's loop
  /// strength reduction otherwise chooses, Intel cores split each FMA with a memory operand into two uops
  /// (matmul 64^3 ran at 0.73x the C backend's speed on a Sapphire Rapids VM). The JIT's code generation runs
  /// without loop strength reduction (llvm_jit.cpp), which would fold these pointers back into the counter.
  llvm::Value* induction_address(const std::string& base, const Affine& a) {
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

  llvm::Function* make_function(const std::string& name, llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes l) {
    llvm::Function* f = llvm::Function::Create(type, l, name, module_);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr("target-cpu", cpu_.cpu);
    if (!cpu_.features.empty()) f->addFnAttr("target-features", cpu_.features);
    if (cpu_.vector_bits > 0) {
      // Without these, LLVM may split the widest vectors in two (it prefers 256 bits on AVX-512 machines).
      f->addFnAttr("prefer-vector-width", std::to_string(cpu_.vector_bits));
      f->addFnAttr("min-legal-vector-width", std::to_string(cpu_.vector_bits));
    }
    return f;
  }

  void start(llvm::Function* f) {
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", f);
    auto* body = llvm::BasicBlock::Create(ctx_, "body", f);
    FunctionState s;
    s.f = f;
    s.entry = entry;
    s.body = body;
    functions_.push_back(std::move(s));
    b_.SetInsertPoint(body);
  }
  void end_function() {
    FunctionState& s = functions_.back();
    b_.CreateRetVoid();
    b_.SetInsertPoint(s.entry);
    b_.CreateBr(s.body);
  }

  llvm::Value* entry_alloca(llvm::Type* type, const std::string& name) {
    llvm::BasicBlock* entry = functions_.back().entry;
    llvm::IRBuilder<> at(entry, entry->begin());
    return at.CreateAlloca(type, nullptr, name);
  }

  llvm::Function* workspace_function() {
    if (!workspace_fn_) {
      workspace_fn_ = make_function(function_ + "_workspace", llvm::FunctionType::get(b_.getPtrTy(), false),
                                    llvm::GlobalValue::InternalLinkage);
    }
    return workspace_fn_;
  }

  /// The workspace named `name`; the root one is obtained in the entry point's entry block on first use.
  llvm::Value* workspace_value(const std::string& name) {
    if (name != kRootWorkspace || names_.count(name)) return lookup(name);
    KRIEK_ASSERT(functions_.size() == 1, "the root workspace first used inside a parallel loop");
    llvm::IRBuilder<> at(functions_.front().entry);
    llvm::Value* ws = at.CreateCall(workspace_function(), {}, name);
    names_[name] = ws;  // not scoped: it dominates the whole entry point
    return ws;
  }

  Affine counted_loop(llvm::Value* first, llvm::Value* end) {
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

  void close_counted_loop(Unroll unroll) {
    const Loop l = pop(open_);
    for (const auto& [key, p] : l.pointers) {
      p.pointer->addIncoming(b_.CreateInBoundsGEP(b_.getFloatTy(), p.pointer, {b_.getInt64(p.step)}), b_.GetInsertBlock());
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

  /// Starts the outlined body of a collapsed parallel nest: stores every name in scope into a context struct,
  /// opens the body function (called with them by the function the runtime calls) and its loop over [first, end)
  /// of the flattened iterations, and splits the flat index into one variable per collapsed loop
  /// (collapsed_vars_). A parallel nest inside the body (the OpenMP pragmas of the C backend nest too) is outlined
  /// again from the outlined function.
  void outline() {
    std::vector<std::pair<std::string, llvm::Value*>> live(names_.begin(), names_.end());
    std::vector<llvm::Type*> fields;
    for (const auto& [name, v] : live) fields.push_back(v->getType());
    for (const auto& [name, slots] : registers_) fields.insert(fields.end(), slots.size(), b_.getPtrTy());
    llvm::StructType* type = llvm::StructType::get(ctx_, fields);
    llvm::Value* context = entry_alloca(type, fresh("ctx"));
    unsigned field = 0;
    for (const auto& [name, v] : live) b_.CreateStore(v, b_.CreateStructGEP(type, context, field++));
    for (const auto& [name, slots] : registers_) {
      for (llvm::Value* s : slots) b_.CreateStore(s, b_.CreateStructGEP(type, context, field++));
    }
    std::int64_t trips = 1;
    for (auto t : collapsed_) trips *= t;

    llvm::Type* i64 = b_.getInt64Ty();
    const std::string outlined = function_ + ".parallel" + std::to_string(next_++);
    llvm::Function* f = make_function(outlined, llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), i64, i64}, false),
                                      llvm::GlobalValue::InternalLinkage);
    // The body proper takes every live value as an argument, its pointers noalias (the lowering never reaches one
    // memory location through two names, as the entry point's own noalias operands say), and is inlined into f,
    // which loads them from the context: loaded from memory, the optimizer would have to assume that any two alias.
    std::vector<llvm::Type*> params = fields;
    params.insert(params.end(), {i64, i64});
    llvm::Function* body = make_function(outlined + ".body", llvm::FunctionType::get(b_.getVoidTy(), params, false),
                                         llvm::GlobalValue::InternalLinkage);
    body->addFnAttr(llvm::Attribute::AlwaysInline);
    for (unsigned i = 0; i < fields.size(); ++i) {
      if (fields[i]->isPointerTy()) body->addParamAttr(i, llvm::Attribute::NoAlias);
    }
    {
      llvm::IRBuilder<> at(llvm::BasicBlock::Create(ctx_, "entry", f));
      std::vector<llvm::Value*> args;
      for (unsigned i = 0; i < fields.size(); ++i) {
        args.push_back(at.CreateLoad(fields[i], at.CreateStructGEP(type, f->getArg(0), i)));
      }
      args.insert(args.end(), {f->getArg(1), f->getArg(2)});
      at.CreateCall(body, args);
      at.CreateRetVoid();
    }
    std::map<std::string, llvm::Value*> outer = names_;
    llvm::BasicBlock* resume = b_.GetInsertBlock();
    start(body);
    FunctionState& s = functions_.back();
    s.names = std::move(outer);
    s.resume = resume;
    s.context = context;
    s.trips = trips;
    s.runtime_body = f;
    // Rebind every name to the body's argument.
    field = 0;
    names_.clear();
    for (const auto& [name, v] : live) {
      body->getArg(field)->setName(name);
      names_[name] = body->getArg(field++);
    }
    s.registers = registers_;
    for (auto& [name, slots] : registers_) {
      for (llvm::Value*& slot : slots) slot = body->getArg(field++);
    }
    const Affine flat = counted_loop(body->getArg(field), body->getArg(field + 1));
    llvm::Value* index = value(flat);
    std::int64_t inner = trips;
    for (std::int64_t t : collapsed_) {
      inner /= t;
      llvm::Value* v = b_.CreateUDiv(index, b_.getInt64(inner));
      if (inner * t != trips) v = b_.CreateURem(v, b_.getInt64(t));
      const std::string var = fresh("i");
      v->setName(var);
      bind(var, v);
      collapsed_vars_.push_back(Affine::variable(var));
    }
    collapsed_.clear();
  }

  /// Ends the outlined function and calls the runtime's parallel loop on it from the enclosing function.
  void end_outline(Unroll unroll) {
    close_counted_loop(unroll);
    FunctionState s = functions_.back();
    end_function();
    functions_.pop_back();
    names_ = std::move(s.names);
    registers_ = std::move(s.registers);
    b_.SetInsertPoint(s.resume);
    call_parallel_for(b_, *s.runtime_body, s.context, s.trips);
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  IrCpu cpu_;
  IrUse use_;
  std::string function_;
  int width_ = 0;
  int next_ = 0;
  bool in_kernel_ = false;  ///< emitting a kernel or copy: its loops are not the Impl's
  llvm::Function* workspace_fn_ = nullptr;
  std::map<std::string, llvm::Value*> names_;
  std::vector<std::string> defined_;
  std::vector<std::size_t> scopes_;
  std::map<std::string, std::vector<llvm::Value*>> registers_;
  std::map<std::string, std::size_t> register_depth_;  ///< register name -> loops open when it was made
  std::vector<FunctionState> functions_;
  std::vector<Frame> loops_;
  std::vector<Loop> open_;
  std::vector<std::int64_t> collapsed_;
  std::vector<Affine> collapsed_vars_;
};

}  // namespace

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
