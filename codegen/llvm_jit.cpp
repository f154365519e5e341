// From the LLVM module of a kernel (llvm_emitter.cpp) to code: the TargetMachine of the target's CPU
// (position-independent, so one object serves the JIT and libraries), the O3 pipeline of the new pass manager,
// machine code as an ELF object in memory, and one process-wide ORC LLJIT that links each kernel's object into a
// JITDylib of its own (kernels may share names) and drops it with the last copy of the kernel.
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/llvm_ir.h"
#include "impl/printer.h"
#include "spec/stable_hash.h"

namespace kriek::codegen {
namespace {

using Clock = std::chrono::steady_clock;

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Code generation without loop strength reduction: the emitter gives each loop's addresses a pointer of
    // their own (llvm_loops.cpp, induction_address), which LSR would fold back into the loop counter as an
    // index register, and Intel cores split an FMA with an indexed memory operand into two uops.
    const char* args[] = {"kriek", "-disable-lsr"};
    llvm::cl::ParseCommandLineOptions(2, args, "", &llvm::nulls());
  });
}

std::string error_text(llvm::Error e) { return llvm::toString(std::move(e)); }

IrCpu ir_cpu(const Target& target) {
  const int bits = target.isa == Isa::avx512 ? 512 : target.isa == Isa::avx2 ? 256 : 0;
  if (target.name == "host") {
    std::string cpu = llvm::sys::getHostCPUName().str();
    // LLVM 16 does not know every new CPU (Zen 5 is "generic" while its features are right): name a known one.
    if (cpu == "generic" && target.isa == Isa::avx512) cpu = "znver4";
    if (cpu == "generic" && target.isa == Isa::avx2) cpu = "haswell";
    std::string features;
    llvm::StringMap<bool> host;
    if (llvm::sys::getHostCPUFeatures(host)) {
      for (const auto& f : host) features += (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
    }
    return IrCpu{cpu, features, bits};
  }
  switch (target.isa) {
    case Isa::avx512: return IrCpu{"skylake-avx512", "", bits};
    case Isa::avx2: return IrCpu{"haswell", "", bits};
    case Isa::scalar: return IrCpu{"x86-64", "", 0};
  }
  return IrCpu{};
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const IrCpu& cpu) {
  initialize_llvm();
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t) throw CompileError("LLVM has no target for " + triple + ": " + error);
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(triple, cpu.cpu, cpu.features, llvm::TargetOptions(),
                                                                 llvm::Reloc::PIC_, std::nullopt,
                                                                 llvm::CodeGenOpt::Aggressive));
  if (!tm) throw CompileError("LLVM cannot generate code for the CPU " + cpu.cpu);
  return tm;
}

/// A TargetMachine for `cpu`, lent from a process-wide pool per CPU and features (making one costs about as much as
/// lowering a small kernel) and given back when the lease ends. A lease is one thread's: a TargetMachine is not
/// meant to be shared by threads compiling at once, so a second thread asking meanwhile gets a machine of its own.
class TargetMachineLease {
 public:
  explicit TargetMachineLease(const IrCpu& cpu) : key_(cpu.cpu + "|" + cpu.features) {
    {
      std::lock_guard<std::mutex> lock(mutex());
      auto& free = pool()[key_];
      if (!free.empty()) {
        tm_ = std::move(free.back());
        free.pop_back();
      }
    }
    if (!tm_) tm_ = make_target_machine(cpu);
  }
  ~TargetMachineLease() {
    std::lock_guard<std::mutex> lock(mutex());
    pool()[key_].push_back(std::move(tm_));
  }
  TargetMachineLease(const TargetMachineLease&) = delete;
  TargetMachineLease& operator=(const TargetMachineLease&) = delete;
  llvm::TargetMachine& operator*() const { return *tm_; }
  llvm::TargetMachine* operator->() const { return tm_.get(); }

 private:
  using Pool = std::map<std::string, std::vector<std::unique_ptr<llvm::TargetMachine>>>;
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static Pool& pool() {
    static Pool* p = new Pool;  // never destroyed: a lease may end after static destruction began
    return *p;
  }
  std::string key_;
  std::unique_ptr<llvm::TargetMachine> tm_;
};

/// The module of `impl` for `tm`, checked by LLVM's verifier (a failure is a kriek bug).
IrModule build(llvm::LLVMContext& context, const ImplPtr& impl, const Target& target, const std::string& function,
               const IrCpu& cpu, llvm::TargetMachine& tm, IrUse use) {
  IrModule m = build_ir_module(context, impl, target, function, cpu, use);
  m.module->setTargetTriple(tm.getTargetTriple().str());
  m.module->setDataLayout(tm.createDataLayout());
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*m.module, &os)) {
    m.module->print(os, nullptr);
    KRIEK_ASSERT(false, "the LLVM IR of ", function, " is invalid: ", os.str());
  }
  return m;
}

/// O3 of the new pass manager; no vectorizers for scalar targets (as the C backend's -fno-tree-vectorize).
void optimize(llvm::Module& m, llvm::TargetMachine& tm, bool vectorize) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = vectorize;
  tuning.SLPVectorization = vectorize;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

llvm::SmallVector<char, 0> object_code(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile)) {
    throw CompileError("LLVM cannot write object files for the CPU " + tm.getTargetCPU().str());
  }
  pm.run(m);
  return bytes;
}

/// The process's JIT: created on first use and never destroyed (kernels may outlive any static).
struct Jit {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::recursive_mutex mutex;  ///< recursive: a kernel dropped while another is being added
  int next = 0;
};

Jit& jit() {
  static Jit* j = [] {
    initialize_llvm();
    auto made = llvm::orc::LLJITBuilder().create();
    if (!made) throw CompileError("cannot start the LLVM JIT: " + error_text(made.takeError()));
    auto* out = new Jit{std::move(*made), {}, 0};
    llvm::orc::JITDylib& main = out->lljit->getMainJITDylib();
    // LLJIT does not see this process's symbols by default: the runtime explicitly, libc through the generator.
    if (auto e = define_runtime(*out->lljit)) throw CompileError("cannot define kriek's JIT runtime: " + *e);
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        out->lljit->getDataLayout().getGlobalPrefix());
    if (!process) throw CompileError("cannot search this process's symbols: " + error_text(process.takeError()));
    main.addGenerator(std::move(*process));
    return out;
  }();
  return *j;
}

/// Optimizes `m`, generates its object and links it into a JITDylib of its own; the kernel at `function`.
LoadedKernel jit_link(llvm::Module& m, llvm::TargetMachine& tm, const IrCpu& cpu, const std::string& function,
                      bool parallel) {
  optimize(m, tm, cpu.vector_bits > 0);
  const auto object = object_code(m, tm);
  Jit& j = jit();
  std::lock_guard<std::recursive_mutex> lock(j.mutex);
  auto dylib = j.lljit->createJITDylib("kernel" + std::to_string(j.next++));
  if (!dylib) throw CompileError("cannot make a JITDylib: " + error_text(dylib.takeError()));
  llvm::orc::JITDylib& jd = *dylib;
  jd.addToLinkOrder(j.lljit->getMainJITDylib());
  auto drop = [&j, &jd](void*) {
    std::lock_guard<std::recursive_mutex> lock(j.mutex);
    if (auto e = j.lljit->getExecutionSession().removeJITDylib(jd)) llvm::consumeError(std::move(e));
  };
  std::shared_ptr<void> owner(static_cast<void*>(&jd), drop);
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), function);
  if (auto e = j.lljit->addObjectFile(jd, std::move(buffer))) {
    throw CompileError("cannot add " + function + " to the JIT: " + error_text(std::move(e)));
  }
  auto address = j.lljit->lookup(jd, function);
  if (!address) throw CompileError("cannot link " + function + " in the JIT: " + error_text(address.takeError()));
  return LoadedKernel::jitted(address->toPtr<void*>(), std::move(owner), jit_threads(parallel));
}

}  // namespace

std::string llvm_cpu(const Target& target) { return ir_cpu(target).cpu; }

std::string emit_llvm_ir(const ImplPtr& impl, const Target& target, std::string function) {
  KRIEK_ASSERT(impl != nullptr, "code generation of a null Impl");
  if (function.empty()) function = function_name(impl->spec);
  const IrCpu cpu = ir_cpu(target);
  const TargetMachineLease tm(cpu);
  llvm::LLVMContext context;
  const IrModule m = build(context, impl, target, function, cpu, *tm, IrUse::jit);
  std::string text;
  llvm::raw_string_ostream os(text);
  m.module->print(os, nullptr);
  return os.str();
}

std::uint64_t code_hash(const std::vector<ImplPtr>& impls, const Target& target) {
  StableHasher h;
  for (const ImplPtr& impl : impls) h.add(emit_llvm_ir(impl, target, "kriek_kernel"));
  return h.value();
}

bool write_llvm_object(const ImplPtr& impl, const Target& target, const std::filesystem::path& path,
                       std::string function) {
  KRIEK_ASSERT(impl != nullptr, "code generation of a null Impl");
  if (function.empty()) function = function_name(impl->spec);
  const IrCpu cpu = ir_cpu(target);
  const TargetMachineLease tm(cpu);
  llvm::LLVMContext context;
  IrModule m = build(context, impl, target, function, cpu, *tm, IrUse::object);
  optimize(*m.module, *tm, cpu.vector_bits > 0);
  const auto bytes = object_code(*m.module, *tm);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) user_error("cannot write the object file '", path.string(), "'");
  return m.lowered.parallel;
}

LlvmSource emit_llvm_source(const ImplPtr& impl, const Target& target, std::string function) {
  KRIEK_ASSERT(impl != nullptr, "code generation of a null Impl");
  if (function.empty()) function = function_name(impl->spec);
  const IrCpu cpu = ir_cpu(target);
  const TargetMachineLease tm(cpu);
  llvm::LLVMContext context;
  const IrModule m = build(context, impl, target, function, cpu, *tm, IrUse::object);
  LlvmSource out;
  llvm::raw_string_ostream os(out.ir);
  os << "; LLVM " << LLVM_VERSION_STRING << "\n";
  m.module->print(os, nullptr);
  os.flush();
  out.function = function;
  out.workspace_bytes = m.lowered.workspace_bytes;
  out.parallel = m.lowered.parallel;
  out.parameters = root_operand_names(impl->spec);
  return out;
}

JitKernel jit_compile(const ImplPtr& impl, const Target& target, std::string function) {
  KRIEK_ASSERT(impl != nullptr, "code generation of a null Impl");
  const auto start = Clock::now();
  if (function.empty()) function = function_name(impl->spec);
  const IrCpu cpu = ir_cpu(target);
  const TargetMachineLease tm(cpu);
  llvm::LLVMContext context;
  IrModule m = build(context, impl, target, function, cpu, *tm, IrUse::jit);
  JitKernel k;
  k.kernel = jit_link(*m.module, *tm, cpu, function, m.lowered.parallel);
  k.function = function;
  k.workspace_bytes = m.lowered.workspace_bytes;
  k.parallel = m.lowered.parallel;
  k.jit_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return k;
}

LoadedKernel jit_peak_probe(const Target& target, int chains) {
  const IrCpu cpu = ir_cpu(target);
  const TargetMachineLease tm(cpu);
  llvm::LLVMContext context;
  llvm::Module m("kriek_peak_probe", context);
  m.setTargetTriple(tm->getTargetTriple().str());
  m.setDataLayout(tm->createDataLayout());
  llvm::IRBuilder<> b(context);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* type = cpu.vector_bits > 0 ? llvm::FixedVectorType::get(f32, static_cast<unsigned>(cpu.vector_bits / 32)) : f32;
  auto* f = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy()}, false),
                                   llvm::GlobalValue::ExternalLinkage, "kriek_peak_probe", m);
  f->addFnAttr("target-cpu", cpu.cpu);
  if (!cpu.features.empty()) f->addFnAttr("target-features", cpu.features);
  auto* entry = llvm::BasicBlock::Create(context, "entry", f);
  auto* loop = llvm::BasicBlock::Create(context, "loop", f);
  auto* done = llvm::BasicBlock::Create(context, "done", f);
  b.SetInsertPoint(entry);
  llvm::Value* n = b.CreateFPToSI(b.CreateLoad(f32, f->getArg(0)), b.getInt64Ty());
  auto constant = [&](double x) { return llvm::ConstantFP::get(type, x); };
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  std::vector<llvm::PHINode*> a;
  // Independent chains a = a * b + d, an empty asm with a memory clobber keeping the loop a loop (as the C probe's).
  for (int c = 0; c < chains; ++c) {
    a.push_back(b.CreatePHI(type, 2));
    a.back()->addIncoming(constant(c), entry);
  }
  std::vector<llvm::Value*> next;
  for (int c = 0; c < chains; ++c) {
    next.push_back(cpu.vector_bits > 0
                       ? b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a[c], constant(0.999999), constant(1e-7)})
                       : b.CreateFAdd(b.CreateFMul(a[c], constant(0.999999)), constant(1e-7)));
    a[c]->addIncoming(next.back(), loop);
  }
  b.CreateCall(llvm::InlineAsm::get(llvm::FunctionType::get(b.getVoidTy(), false), "", "~{memory}", true));
  llvm::Value* i1 = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(i1, loop);
  b.CreateCondBr(b.CreateICmpSLT(i1, n), loop, done);
  b.SetInsertPoint(done);
  llvm::Value* sum = next[0];
  for (int c = 1; c < chains; ++c) sum = b.CreateFAdd(sum, next[c]);
  if (cpu.vector_bits > 0) sum = b.CreateExtractElement(sum, b.getInt64(0));
  b.CreateStore(sum, f->getArg(1));
  b.CreateRetVoid();
  return jit_link(m, *tm, cpu, "kriek_peak_probe", false);
}

}  // namespace kriek::codegen
