// Eigen 3.4 runner: C.noalias() = A * B on row-major maps of the driver's buffers, compiled -O3 -march=native
// -fopenmp (Eigen's GEMM parallelizes with OpenMP). Eigen allocates its packing buffers on every call; glibc's
// heap trimming then returns and refetches them from the kernel, costing up to 4x at some sizes, so prepare()
// raises the trim and mmap thresholds (as MALLOC_TRIM_THRESHOLD_ / MALLOC_MMAP_THRESHOLD_ would).
#include <malloc.h>

#include <Eigen/Core>

#include "driver.h"

namespace bench {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class EigenRunner final : public Runner {
 public:
  std::string name() const override { return "eigen"; }
  std::string kernel() const override {
    std::string isa = Eigen::SimdInstructionSetsInUse();  // "AVX512, FMA, AVX2, ...": keep the widest
    return "Eigen 3.4 " + isa.substr(0, isa.find(','));
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    Eigen::setNbThreads(threads);
    A_ = std::make_unique<Eigen::Map<const RowMajor>>(A, p.M, p.K);
    B_ = std::make_unique<Eigen::Map<const RowMajor>>(B, p.K, p.N);
    C_ = std::make_unique<Eigen::Map<RowMajor>>(C, p.M, p.N);
  }
  void run() override { C_->noalias() = *A_ * *B_; }
  void release() override { A_.reset(), B_.reset(), C_.reset(); }

 private:
  std::unique_ptr<Eigen::Map<const RowMajor>> A_, B_;
  std::unique_ptr<Eigen::Map<RowMajor>> C_;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  v.push_back(std::make_unique<EigenRunner>());
  return v;
}

}  // namespace bench
