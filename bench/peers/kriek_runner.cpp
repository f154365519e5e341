// The kriek runner: dlopens a shared object holding synthesized kernels `void NAME(const float *A, const float *B,
// float *C)` for one fixed Problem each (matmul: lhs, rhs, out; conv: image, filters, out; dense, row-major or
// NHWC / HWIO, the output overwritten), so kernels kriek emitted race any peer in that peer's own process, on the
// same inputs. Linked into every peer executable. Two ways to name the kernels:
//   --kriek-so PATH --kriek-symbol NAME [--kriek-size SIZE]   one kernel of one problem;
//   --kriek-lib PATH   a library of kernels named by Problem::kriek_symbol() (kriek_matmul_MxK_KxN_f32, ...; see
//                      scripts/kriek_library.sh), each with an optional _t<threads> variant that is preferred for
//                      that thread count (a serial kernel for 1 thread, say); problems without a kernel are skipped.
// A library may also hold each problem's kernel for B pre-packed (Problem::kriek_packed_symbol: the filters or
// the rhs in output-column panels, Problem::kriek_pack_block() wide): the runner "kriek-packed" packs B once in
// prepare() (untimed, as oneDNN's packed variants reorder theirs) and races that kernel.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "driver.h"

namespace bench {
namespace {

using KriekKernel = void (*)(const float*, const float*, float*);

class KriekRunner final : public Runner {
 public:
  KriekRunner(const Options& o, bool packed)
      : path_(o.kriek_lib.empty() ? o.kriek_so : o.kriek_lib), symbol_(o.kriek_symbol), size_(o.kriek_problem),
        library_(!o.kriek_lib.empty()), packed_(packed) {
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

  std::string name() const override { return packed_ ? "kriek-packed" : "kriek"; }
  bool handles(Op) const override { return true; }
  std::string kernel() const override { return symbol_; }
  std::string excluded() const override {
    return packed_ ? std::string("packing of ") + (size_.op == Op::conv ? "the filters" : "B") + " into " +
                         std::to_string(size_.kriek_pack_block()) + "-column panels"
                   : "";
  }
  std::string unsupported(const Problem& p, int threads) const override {
    if (library_) {
      const std::string base = symbol_of(p);
      if (find(base + "_t" + std::to_string(threads)) || find(base)) return "";
      return "no kernel " + base + " in " + path_;
    }
    (void)threads;  // the kernel decides its own threading (OpenMP pragmas in the emitted C)
    if (!(p == size_)) return "kernel " + symbol_ + " computes " + size_.text() + " only";
    return "";
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    A_ = A, B_ = B, C_ = C;
    size_ = p;
    if (library_) {
      symbol_ = symbol_of(p) + "_t" + std::to_string(threads);
      fn_ = find(symbol_);
      if (!fn_) fn_ = find(symbol_ = symbol_of(p));
    }
    if (packed_) B_ = pack(p, B);
  }
  void release() override { packed_b_.reset(); }
  void run() override { fn_(A_, B_, C_); }

 private:
  std::string symbol_of(const Problem& p) const { return packed_ ? p.kriek_packed_symbol() : p.kriek_symbol(); }

  /// B as kriek's blocked layout on its last dimension (blk<last>:b): B seen as R rows of N columns (R = the
  /// product of the other dimensions: K, batch·K, or FH·FW·C), element (r, n) at ((n / b)·R + r)·b + n % b, the
  /// columns padded to a multiple of b with zeros. Aligned to 64 bytes like every other buffer of the driver (and
  /// oneDNN's packed weights): a panel row is one cache line, and a std::vector's 16-byte alignment split every
  /// one of them across two (res2_3x3's packed kernel measured 149 instead of 178 GFLOP/s in some processes).
  const float* pack(const Problem& p, const float* B) {
    const std::size_t n = static_cast<std::size_t>(p.N), rows = p.b_size() / n;
    const std::size_t b = static_cast<std::size_t>(p.kriek_pack_block()), panels = (n + b - 1) / b;
    const std::size_t size = panels * rows * b;
    packed_b_.reset(alloc_aligned(size));
    float* packed = packed_b_.get();
    std::fill(packed, packed + size, 0.0f);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < n; ++c) packed[((c / b) * rows + r) * b + c % b] = B[r * n + c];
    return packed;
  }

  KriekKernel find(const std::string& symbol) const {
    return reinterpret_cast<KriekKernel>(dlsym(handle_, symbol.c_str()));
  }

  std::string path_, symbol_;
  Problem size_;
  bool library_ = false;
  bool packed_ = false;
  struct FreeAligned {
    void operator()(float* p) const { free_aligned(p); }
  };
  std::unique_ptr<float, FreeAligned> packed_b_;
  void* handle_ = nullptr;
  KriekKernel fn_ = nullptr;
  const float *A_ = nullptr, *B_ = nullptr;
  float* C_ = nullptr;
};

}  // namespace

RunnerPtr make_kriek_runner(const Options& opts, bool packed) { return std::make_unique<KriekRunner>(opts, packed); }

}  // namespace bench
