// The functions the LLVM emitter emits (llvm_emitter_impl.h): their attributes for the target's CPU, an entry block
// of allocas that falls through to the body, the workspace function and the root workspace, and a collapsed parallel
// nest outlined into a function of (context, first, end) over its iterations, which kriek's runtime calls on its
// threads (call_parallel_for, llvm_runtime.cpp).
#include <llvm/IR/Module.h>

#include "codegen/llvm_emitter_impl.h"

namespace kriek::codegen {

llvm::Function* IrEmitter::make_function(const std::string& name, llvm::FunctionType* type,
                                         llvm::GlobalValue::LinkageTypes l) {
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

void IrEmitter::start(llvm::Function* f) {
  auto* entry = llvm::BasicBlock::Create(ctx_, "entry", f);
  auto* body = llvm::BasicBlock::Create(ctx_, "body", f);
  FunctionState s;
  s.f = f;
  s.entry = entry;
  s.body = body;
  functions_.push_back(std::move(s));
  b_.SetInsertPoint(body);
}

void IrEmitter::end_function() {
  FunctionState& s = functions_.back();
  b_.CreateRetVoid();
  b_.SetInsertPoint(s.entry);
  b_.CreateBr(s.body);
}

llvm::Value* IrEmitter::entry_alloca(llvm::Type* type, const std::string& name) {
  llvm::BasicBlock* entry = functions_.back().entry;
  llvm::IRBuilder<> at(entry, entry->begin());
  return at.CreateAlloca(type, nullptr, name);
}

llvm::Function* IrEmitter::workspace_function() {
  if (!workspace_fn_) {
    workspace_fn_ = make_function(function_ + "_workspace", llvm::FunctionType::get(b_.getPtrTy(), false),
                                  llvm::GlobalValue::InternalLinkage);
  }
  return workspace_fn_;
}

/// The workspace named `name`; the root one is obtained in the entry point's entry block on first use.
llvm::Value* IrEmitter::workspace_value(const std::string& name) {
  if (name != kRootWorkspace || names_.count(name)) return lookup(name);
  KRIEK_ASSERT(functions_.size() == 1, "the root workspace first used inside a parallel loop");
  llvm::IRBuilder<> at(functions_.front().entry);
  llvm::Value* ws = at.CreateCall(workspace_function(), {}, name);
  names_[name] = ws;  // not scoped: it dominates the whole entry point
  return ws;
}

/// Starts the outlined body of a collapsed parallel nest: stores every name in scope into a context struct,
/// opens the body function (called with them by the function the runtime calls) and its loop over [first, end)
/// of the flattened iterations, and splits the flat index into one variable per collapsed loop
/// (collapsed_vars_). A parallel nest inside the body (the OpenMP pragmas of the C backend nest too) is outlined
/// again from the outlined function.
void IrEmitter::outline() {
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
void IrEmitter::end_outline(Unroll unroll) {
  close_counted_loop(unroll);
  FunctionState s = functions_.back();
  end_function();
  functions_.pop_back();
  names_ = std::move(s.names);
  registers_ = std::move(s.registers);
  b_.SetInsertPoint(s.resume);
  call_parallel_for(b_, *s.runtime_body, s.context, s.trips);
}

}  // namespace kriek::codegen
