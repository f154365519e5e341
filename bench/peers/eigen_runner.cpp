// Eigen 3.4 runner: C.noalias() = A * B on row-major maps of the driver's buffers, compiled -O3 -march=native
// -fopenmp (Eigen's GEMM parallelizes with OpenMP). Eigen allocates its packing buffers on every call (the
// driver turns glibc's heap trimming off for that, see driver.cpp). A batched matmul is a loop over maps of each
// batch's matrices.
#include <Eigen/Core>
#include <vector>

#include "driver.h"

namespace bench {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class EigenRunner final : public Runner {
 public:
  std::string name() const override { return "eigen"; }
  bool handles(Op op) const override { return op == Op::matmul; }
  std::string kernel() const override {
    std::string isa = Eigen::SimdInstructionSetsInUse();  // "AVX512, FMA, AVX2, ...": keep the widest
    return "Eigen 3.4 " + isa.substr(0, isa.find(','));
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    Eigen::setNbThreads(threads);
    const std::size_t a = std::size_t(p.M) * p.K, b = std::size_t(p.K) * p.N, c = std::size_t(p.M) * p.N;
    for (int i = 0; i < p.batch; ++i) {
      A_.emplace_back(A + i * a, p.M, p.K);
      B_.emplace_back(B + i * b, p.K, p.N);
      C_.emplace_back(C + i * c, p.M, p.N);
    }
  }
  void run() override {
    for (std::size_t i = 0; i < C_.size(); ++i) C_[i].noalias() = A_[i] * B_[i];
  }
  void release() override { A_.clear(), B_.clear(), C_.clear(); }

 private:
  std::vector<Eigen::Map<const RowMajor>> A_, B_;
  std::vector<Eigen::Map<RowMajor>> C_;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  v.push_back(std::make_unique<EigenRunner>());
  return v;
}

}  // namespace bench
