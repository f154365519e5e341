// oneDNN 2.6 runners: dnnl::matmul on row-major (format_tag::ab) A, B, C ("onednn"), and the same with B in
// format_tag::any so the primitive picks its own packed weight layout ("onednn-packedB"), B reordered into it
// once. Primitive creation and that reorder happen in prepare(), so the timing excludes them, as it does for a
// user who reuses the primitive and the packed weights.
#include <omp.h>

#include <dnnl.hpp>

#include "driver.h"

namespace bench {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

class OnednnRunner final : public Runner {
 public:
  explicit OnednnRunner(bool pack_b) : pack_b_(pack_b), engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

  std::string name() const override { return pack_b_ ? "onednn-packedB" : "onednn"; }
  std::string kernel() const override { return impl_; }
  std::string excluded() const override {
    return pack_b_ ? (b_reordered_ ? "primitive creation + reorder of B to the packed layout" : "primitive creation")
                   : "primitive creation";
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    omp_set_num_threads(threads);
    const auto f32 = memory::data_type::f32;
    memory::desc a_md({p.M, p.K}, f32, tag::ab), b_user({p.K, p.N}, f32, tag::ab), c_md({p.M, p.N}, f32, tag::ab);
    memory::desc b_md = pack_b_ ? memory::desc({p.K, p.N}, f32, tag::any) : b_user;
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine_);
    impl_ = pd.impl_info_str();
    prim_ = dnnl::matmul(pd);
    a_ = memory(a_md, engine_, const_cast<float*>(A));
    c_ = memory(c_md, engine_, C);
    memory b_plain(b_user, engine_, const_cast<float*>(B));
    b_reordered_ = pd.weights_desc() != b_user;
    if (b_reordered_) {
      b_ = memory(pd.weights_desc(), engine_);
      dnnl::reorder(b_plain, b_).execute(stream_, b_plain, b_);
      stream_.wait();
      impl_ += " (B packed)";
    } else {
      b_ = b_plain;
    }
  }
  void run() override {
    prim_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}});
    stream_.wait();
  }
  void release() override { prim_ = {}, a_ = {}, b_ = {}, c_ = {}; }

 private:
  bool pack_b_;
  bool b_reordered_ = false;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  memory a_, b_, c_;
  std::string impl_;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  v.push_back(std::make_unique<OnednnRunner>(false));
  v.push_back(std::make_unique<OnednnRunner>(true));
  return v;
}

}  // namespace bench
