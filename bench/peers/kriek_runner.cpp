// The kriek runner: dlopens a shared object holding synthesized kernels `void NAME(const float *A, const float *B,
// float *C)` for one fixed Problem each (matmul: lhs, rhs, out; conv: image, filters, out; dense, row-major or
// NHWC / HWIO, the output overwritten), so kernels kriek emitted race any peer in that peer's own process, on the
// same inputs. Linked into every peer executable. Two ways to name the kernels:
//   --kriek-so PATH --kriek-symbol NAME [--kriek-size SIZE]   one kernel of one problem;
//   --kriek-lib PATH   a library of kernels named by Problem::kriek_symbol() (kriek_matmul_MxK_KxN_f32, ...; see
//                      scripts/kriek_library.sh), each with an optional _t<threads> variant that is preferred for
//                      that thread count (a serial kernel for 1 thread, say); problems without a kernel are skipped.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "driver.h"

namespace bench {
namespace {

using KriekKernel = void (*)(const float*, const float*, float*);

class KriekRunner final : public Runner {
 public:
  explicit KriekRunner(const Options& o)
      : path_(o.kriek_lib.empty() ? o.kriek_so : o.kriek_lib), symbol_(o.kriek_symbol), size_(o.kriek_problem),
        library_(!o.kriek_lib.empty()) {
    // RTLD_LOCAL: the kernel's own symbols never interpose on the peer library in this process. RTLD_NODELETE:
    // an OpenMP runtime the kernels pulled in keeps threads parked in its code until the process ends.
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle_) {
      std::fprintf(stderr, "error: cannot load kriek kernel '%s': %s\n", path_.c_str(), dlerror());
      std::exit(1);
    }
    if (!library_) {
      fn_ = find(symbol_);
      if (!fn_) {
        std::fprintf(stderr, "error: '%s' has no symbol '%s'\n", path_.c_str(), symbol_.c_str());
        std::exit(1);
      }
    }
  }
  ~KriekRunner() override { dlclose(handle_); }

  std::string name() const override { return "kriek"; }
  bool handles(Op) const override { return true; }
  std::string kernel() const override { return symbol_; }
  std::string unsupported(const Problem& p, int threads) const override {
    if (library_) {
      if (find(p.kriek_symbol() + "_t" + std::to_string(threads)) || find(p.kriek_symbol())) return "";
      return "no kernel " + p.kriek_symbol() + " in " + path_;
    }
    (void)threads;  // the kernel decides its own threading (OpenMP pragmas in the emitted C)
    if (!(p == size_)) return "kernel " + symbol_ + " computes " + size_.text() + " only";
    return "";
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    A_ = A, B_ = B, C_ = C;
    if (library_) {
      symbol_ = p.kriek_symbol() + "_t" + std::to_string(threads);
      fn_ = find(symbol_);
      if (!fn_) fn_ = find(symbol_ = p.kriek_symbol());
    }
  }
  void run() override { fn_(A_, B_, C_); }

 private:
  KriekKernel find(const std::string& symbol) const {
    return reinterpret_cast<KriekKernel>(dlsym(handle_, symbol.c_str()));
  }

  std::string path_, symbol_;
  Problem size_;
  bool library_ = false;
  void* handle_ = nullptr;
  KriekKernel fn_ = nullptr;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

RunnerPtr make_kriek_runner(const Options& opts) { return std::make_unique<KriekRunner>(opts); }

}  // namespace bench
