// The kriek runner: dlopens a shared object holding one synthesized kernel
// `void NAME(const float *A, const float *B, float *C)` for a fixed M, K, N (row-major, C overwritten), so a
// kernel kriek emitted can race any peer in that peer's own process, on the same inputs. Linked into every
// peer executable; enabled by --kriek-so PATH --kriek-symbol NAME [--kriek-size MxKxN].
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "driver.h"

namespace bench {
namespace {

using KriekKernel = void (*)(const float*, const float*, float*);

class KriekRunner final : public Runner {
 public:
  explicit KriekRunner(const Options& o) : path_(o.kriek_so), symbol_(o.kriek_symbol), size_(o.kriek_problem) {
    // RTLD_LOCAL: the kernel's own symbols never interpose on the peer library in this process.
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      std::fprintf(stderr, "error: cannot load kriek kernel '%s': %s\n", path_.c_str(), dlerror());
      std::exit(1);
    }
    fn_ = reinterpret_cast<KriekKernel>(dlsym(handle_, symbol_.c_str()));
    if (!fn_) {
      std::fprintf(stderr, "error: '%s' has no symbol '%s'\n", path_.c_str(), symbol_.c_str());
      std::exit(1);
    }
  }
  ~KriekRunner() override { dlclose(handle_); }

  std::string name() const override { return "kriek"; }
  std::string kernel() const override { return symbol_; }
  std::string unsupported(const Problem& p, int threads) const override {
    (void)threads;  // the kernel decides its own threading (OpenMP pragmas in the emitted C)
    if (!(p == size_)) return "kernel " + symbol_ + " computes " + size_.text() + " only";
    return "";
  }
  void prepare(const Problem&, const float* A, const float* B, float* C, int) override { A_ = A, B_ = B, C_ = C; }
  void run() override { fn_(A_, B_, C_); }

 private:
  std::string path_, symbol_;
  Problem size_;
  void* handle_ = nullptr;
  KriekKernel fn_ = nullptr;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

RunnerPtr make_kriek_runner(const Options& opts) { return std::make_unique<KriekRunner>(opts); }

}  // namespace bench
