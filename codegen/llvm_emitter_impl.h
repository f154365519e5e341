// Private to the LLVM emitter (llvm_emitter.cpp, llvm_loops.cpp, llvm_functions.cpp): the class IrEmitter, which
// spells the lowering's operations with IRBuilder, with its state (the names in scope, register slots, the open loops
// and the functions being emitted) and its small helpers defined here, its other members in those three files. It
// includes LLVM headers: nothing outside codegen/'s llvm_*.cpp files includes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "codegen/llvm_ir.h"
#include "spec/error.h"

namespace kriek::codegen {

/// The LLVM emitter of one kernel's module (llvm_emitter.cpp says how it spells the lowering). Members not defined
/// here are llvm_emitter.cpp's, except those marked as llvm_loops.cpp's or llvm_functions.cpp's.
class IrEmitter final : public Emitter, public IrKernelContext {
 public:
  IrEmitter(llvm::LLVMContext& context, llvm::Module& module, const Target& target, const IrCpu& cpu, IrUse use,
            std::string function);

  void begin(const std::vector<std::string>& names);
  void finish(std::int64_t bytes);

  // --- Emitter.

  void open_scope() override { scopes_.push_back(defined_.size()); }
  void close_scope() override { unbind_to(pop(scopes_)); }

  std::string memory_buffer(const std::string& workspace, std::int64_t offset) override;
  std::string scalar_registers(std::int64_t elements) override;
  std::string vector_registers(std::int64_t registers) override;

  // Parallel nests and loops: llvm_loops.cpp's.
  void parallel(const std::vector<std::int64_t>& trips) override;
  Affine open_loop(std::int64_t trips) override;
  void close_loop() override;

  std::string thread_workspace() override;

  void below_or_rest(const Affine& trip, std::int64_t bound, const std::function<void()>& below,
                     const std::function<void()>& rest) override;

  void kernel(KernelKind k, const Spec& spec, const std::vector<CView>& ops) override;
  void copy(const CView& from, const CView& to) override;
  void zero(const CView& to) override;
  std::string prefetch_counter(const PrefetchPlan& plan) override;
  void prefetch(const PrefetchPlan& plan) override;

  // --- IrKernelContext.

  llvm::IRBuilderBase& builder() override { return b_; }
  int width() const override { return width_; }

  llvm::Value* element(const CView& v, const Coord& index) override;

  llvm::Value* index(const Affine& a) override { return value(a); }
  llvm::Value* slot(llvm::Type* type) override { return entry_alloca(type, ""); }

  llvm::Value* register_slot(const CView& v) override;

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
  /// True when some coordinate of `origin` has a term in `var`.
  static bool mentions(const Coord& origin, const std::string& var) {
    return std::any_of(origin.begin(), origin.end(), [&](const Affine& a) { return a.coefficient(var) != 0; });
  }
  /// Whether LLVM may unroll a loop (llvm_loops.cpp says when).
  enum class Unroll : std::uint8_t { allowed, disabled };
  static constexpr std::int64_t kUnrollTrips = 4;
  static Unroll unroll(const Frame& f);
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
  llvm::Value* value(llvm::IRBuilderBase& b, const Affine& a);

  // Loops: llvm_loops.cpp's.
  bool bound_before_innermost(const std::string& name) const;
  llvm::Value* induction_address(const std::string& base, const Affine& a);
  Affine counted_loop(llvm::Value* first, llvm::Value* end);
  void close_counted_loop(Unroll unroll);

  // Functions: llvm_functions.cpp's.
  llvm::Function* make_function(const std::string& name, llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes l);
  void start(llvm::Function* f);
  void end_function();
  llvm::Value* entry_alloca(llvm::Type* type, const std::string& name);
  llvm::Function* workspace_function();
  llvm::Value* workspace_value(const std::string& name);
  void outline();
  void end_outline(Unroll unroll);

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

}  // namespace kriek::codegen
