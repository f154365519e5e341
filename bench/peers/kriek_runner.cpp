// The kriek runner: dlopens a shared object holding synthesized kernels `void NAME(const float *A, const float *B,
// float *C)` for fixed M, K, N (row-major, C overwritten), so kernels kriek emitted race any peer in that peer's
// own process, on the same inputs. Linked into every peer executable. Two ways to name the kernels:
//   --kriek-so PATH --kriek-symbol NAME [--kriek-size MxKxN]   one kernel of one size;
//   --kriek-lib PATH   a library of kernels named as `kriek emit` names them, kriek_matmul_MxK_KxN_f32, each with
//                      an optional _t<threads> variant that is preferred for that thread count (a serial kernel
//                      for 1 thread, say); sizes without a kernel are skipped.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "driver.h"

namespace bench {
namespace {

using KriekKernel = void (*)(const float*, const float*, float*);

std::string library_symbol(const Problem& p) {
  return "kriek_matmul_" + std::to_string(p.M) + "x" + std::to_string(p.K) + "_" + std::to_string(p.K) + "x" +
         std::to_string(p.N) + "_f32";
}

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
  std::string kernel() const override { return symbol_; }
  std::string unsupported(const Problem& p, int threads) const override {
    if (library_) {
      if (find(library_symbol(p) + "_t" + std::to_string(threads)) || find(library_symbol(p))) return "";
      return "no kernel " + library_symbol(p) + " in " + path_;
    }
    (void)threads;  // the kernel decides its own threading (OpenMP pragmas in the emitted C)
    if (!(p == size_)) return "kernel " + symbol_ + " computes " + size_.text() + " only";
    return "";
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    A_ = A, B_ = B, C_ = C;
    if (library_) {
      symbol_ = library_symbol(p) + "_t" + std::to_string(threads);
      fn_ = find(symbol_);
      if (!fn_) fn_ = find(symbol_ = library_symbol(p));
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
