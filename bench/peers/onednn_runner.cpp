// oneDNN 2.6 runners. Matmul: dnnl::matmul on row-major (format_tag::ab; batched: abc, 3-D descriptors) A, B, C
// ("onednn"), and the same with B in format_tag::any so the primitive picks its own packed weight layout
// ("onednn-packedB"), B reordered into it once. Conv: dnnl::convolution_forward (inference, direct) on NHWC image
// and output with the filters as given, HWIO ("onednn"), and with the filters in format_tag::any, reordered once
// into the layout the primitive picks ("onednn-packedW"). Primitive creation, the reorder, the argument map and
// the scratchpad (scratchpad_mode::user: allocated once, not per call as in the default library mode) are made in
// prepare(), so the timing excludes them, as it does for a user who reuses the primitive and the packed weights;
// run() is the primitive's execute and the stream's wait, nothing else.
#include <omp.h>

#include <dnnl.hpp>
#include <unordered_map>

#include "driver.h"

namespace bench {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

class OnednnRunner final : public Runner {
 public:
  OnednnRunner(Op op, bool pack) : op_(op), pack_(pack), engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

  std::string name() const override {
    if (!pack_) return "onednn";
    return op_ == Op::conv ? "onednn-packedW" : "onednn-packedB";
  }
  bool handles(Op op) const override { return op == op_; }
  std::string kernel() const override { return impl_; }
  std::string excluded() const override {
    std::string what = op_ == Op::conv ? "the filters" : "B";
    return "primitive creation" + std::string(reordered_ ? " + reorder of " + what + " to the packed layout" : "");
  }
  void prepare(const Problem& p, const float* A, const float* B, float* C, int threads) override {
    omp_set_num_threads(threads);
    memory::desc a_md, b_user, c_md;
    switch (op_) {
      case Op::matmul:
        if (p.batch > 1) {
          a_md = {{p.batch, p.M, p.K}, f32, tag::abc}, b_user = {{p.batch, p.K, p.N}, f32, tag::abc};
          c_md = {{p.batch, p.M, p.N}, f32, tag::abc};
        } else {
          a_md = {{p.M, p.K}, f32, tag::ab}, b_user = {{p.K, p.N}, f32, tag::ab}, c_md = {{p.M, p.N}, f32, tag::ab};
        }
        break;
      case Op::conv:  // dims are always N, C, H, W (OIHW for weights); the tag says how they are laid out
        a_md = {{p.batch, p.C, p.H, p.W}, f32, tag::nhwc};
        b_user = {{p.N, p.C, p.FH, p.FW}, f32, tag::hwio};
        c_md = {{p.batch, p.N, p.OH, p.OW}, f32, tag::nhwc};
        break;
    }
    memory::desc b_md = pack_ ? memory::desc(b_user.dims(), f32, tag::any) : b_user;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    memory::desc weights, scratchpad;
    switch (op_) {
      case Op::matmul: {
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, engine_);
        impl_ = pd.impl_info_str(), weights = pd.weights_desc(), scratchpad = pd.scratchpad_desc();
        prim_ = dnnl::matmul(pd);
        break;
      }
      case Op::conv: {
        // Symmetric padding: the right pad that gives OH = (H + 2·pad - FH) / stride + 1 (rounded down).
        const memory::dim pr_h = (p.OH - 1) * p.stride + p.FH - p.H - p.pad;
        const memory::dim pr_w = (p.OW - 1) * p.stride + p.FW - p.W - p.pad;
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          a_md, b_md, c_md, {p.stride, p.stride}, {p.pad, p.pad}, {pr_h, pr_w});
        dnnl::convolution_forward::primitive_desc pd(d, attr, engine_);
        impl_ = pd.impl_info_str(), weights = pd.weights_desc(), scratchpad = pd.scratchpad_desc();
        prim_ = dnnl::convolution_forward(pd);
        break;
      }
    }
    memory b_plain(b_user, engine_, const_cast<float*>(B));
    reordered_ = weights != b_user;
    memory b = b_plain;
    if (reordered_) {
      b = memory(weights, engine_);
      dnnl::reorder(b_plain, b).execute(stream_, b_plain, b);
      stream_.wait();
      impl_ += op_ == Op::conv ? " (weights packed)" : " (B packed)";
    }
    args_ = {{DNNL_ARG_SRC, memory(a_md, engine_, const_cast<float*>(A))},
             {DNNL_ARG_WEIGHTS, b},
             {DNNL_ARG_DST, memory(c_md, engine_, C)}};
    if (scratchpad.get_size() > 0) args_[DNNL_ARG_SCRATCHPAD] = memory(scratchpad, engine_);
  }
  void run() override {
    prim_.execute(stream_, args_);
    stream_.wait();
  }
  void release() override { prim_ = {}, args_.clear(); }

 private:
  Op op_;
  bool pack_;
  bool reordered_ = false;
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive prim_;
  std::unordered_map<int, memory> args_;
  std::string impl_;
};

}  // namespace

std::vector<RunnerPtr> peer_runners(const Options&) {
  std::vector<RunnerPtr> v;
  for (Op op : {Op::matmul, Op::conv})
    for (bool pack : {false, true}) v.push_back(std::make_unique<OnednnRunner>(op, pack));
  return v;
}

}  // namespace bench
