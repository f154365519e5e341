// The interpreter's walk over an Impl tree: loops visit full and boundary tiles, moves and pipelines run on
// buffers of their own (padding and unwritten elements are NaN, so reading them spoils the answer), slide loops
// keep a window buffer that they shift, kernels run their scalar semantics and holes run reference().
#include "impl/interpreter.h"

#include <algorithm>
#include <limits>

#include "impl/taps.h"
#include "impl/view.h"
#include "spec/conv_geometry.h"
#include "spec/overloaded.h"
#include "spec/reference.h"

namespace kriek {
namespace {

// --- Kernel semantics: the scalar meaning of every kernel (a vector kernel loops over its vector).

float apply_binary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::add: return a + b;
    case BinaryOp::mul: return a * b;
    case BinaryOp::sub: return a - b;
    case BinaryOp::max: return std::max(a, b);
  }
  return 0;
}

/// out[i] = a[i'] op b[i''], where a dimension of extent 1 is read at 0 (broadcasting).
void binary(BinaryOp op, const View& a, const View& b, const View& out) {
  Index ia{}, ib{};
  for_each_index(out.shape, [&](const std::int64_t* i) {
    for (std::size_t d = 0; d < out.rank(); ++d) {
      ia[d] = a.shape[d] == 1 ? 0 : i[d];
      ib[d] = b.shape[d] == 1 ? 0 : i[d];
    }
    out.at(i) = apply_binary(op, a.at(ia.data()), b.at(ib.data()));
  });
}

/// C[b,m,n] += sum_k A[b,m,k] * B[b,k,n] on rank-2 or rank-3 views.
void mult_add(const View& a, const View& b, const View& c) {
  const std::size_t r = c.rank();
  const std::int64_t k = a.shape[r - 1];
  Index ia{}, ib{};
  for_each_index(c.shape, [&](const std::int64_t* i) {
    float acc = c.at(i);
    for (std::int64_t p = 0; p < k; ++p) {
      for (std::size_t d = 0; d + 2 < r; ++d) ia[d] = ib[d] = i[d];
      ia[r - 2] = i[r - 2];
      ia[r - 1] = p;
      ib[r - 2] = p;
      ib[r - 1] = i[r - 1];
      acc += a.at(ia.data()) * b.at(ib.data());
    }
    c.at(i) = acc;
  });
}

/// out[...] += sum over `axis` of in[...].
void reduce_add(std::size_t axis, const View& in, const View& out) {
  Index io{};
  for_each_index(in.shape, [&](const std::int64_t* i) {
    for (std::size_t d = 0, e = 0; d < in.rank(); ++d) {
      if (d != axis) io[e++] = i[d];
    }
    out.at(io.data()) += in.at(i);
  });
}

/// out[0] += sum over the window of image * filters, where the output is one element (so the image is exactly
/// the window): image (FH, FW), (FH, FW, C) or (1, FH, FW, C); filters (FH, FW, 1) or (FH, FW, C, 1).
void conv_add(const View& img, const View& f, const View& out) {
  Index io{}, zero{};
  float acc = out.at(zero.data());
  const std::size_t lead = conv_row_dim(img.rank());
  for_each_index(f.shape, [&](const std::int64_t* i) {
    for (std::size_t d = 0; d + lead < img.rank(); ++d) io[d + lead] = i[d];
    acc += img.at(io.data()) * f.at(i);
  });
  out.at(zero.data()) = acc;
}

/// Runs kernel `k` implementing `spec` on `ops` (inputs, then the output).
void run_kernel(KernelKind k, const Spec& spec, std::span<const View> ops) {
  KRIEK_ASSERT(ops.size() == spec.operands.size(), "kernel ", kernel_name(k), " given ", ops.size(), " operands");
  const View& out = ops.back();
  switch (k) {
    case KernelKind::scalar_copy:
    case KernelKind::vec_load:
    case KernelKind::vec_store: copy_view(ops[0], out); return;
    case KernelKind::scalar_zero:
    case KernelKind::vec_zero:
      for_each_index(out.shape, [&](const std::int64_t* i) { out.at(i) = 0.0f; });
      return;
    case KernelKind::scalar_unary:
    case KernelKind::vec_unary:
      // relu is the only unary op.
      for_each_index(out.shape, [&](const std::int64_t* i) { out.at(i) = std::max(ops[0].at(i), 0.0f); });
      return;
    case KernelKind::scalar_binary:
    case KernelKind::vec_binary: binary(std::get<Binary>(spec.op).op, ops[0], ops[1], out); return;
    case KernelKind::scalar_mult_add:
    case KernelKind::bcast_fma:
    case KernelKind::dot_fma: mult_add(ops[0], ops[1], out); return;
    case KernelKind::direct_conv: conv_add(ops[0], ops[1], out); return;
    case KernelKind::scalar_reduce_add:
    case KernelKind::vec_sum_run:
    case KernelKind::vec_sum_rows:
    case KernelKind::vec_sum_runs: reduce_add(std::get<ReduceSum>(spec.op).axis, ops[0], out); return;
  }
  KRIEK_ASSERT(false, "no semantics for kernel ", static_cast<int>(k));
}

// --- Buffers, windows and the walk.

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

/// A buffer of its own for a tensor of `shape` in `layout`, every element (padding included) NaN.
std::vector<float> fresh_buffer(const Shape& shape, const Layout& layout) {
  return std::vector<float>(static_cast<std::size_t>(layout.buffer_elements(shape)), kPoison);
}

/// The slide window of a loop: the region of the source it holds and its buffer in the window's layout.
class Window {
 public:
  explicit Window(const SlideWindow& w) : layout_(w.layout), border_(w.border.begin(), w.border.end()) {}

  /// A view of the window holding the region of `whole` at `origin` of `shape` (with a border: of `whole` padded
  /// by it, zeroes outside `whole`), keeping the overlap with the previous window and loading only the rest.
  View advance(const View& whole, const Shape& origin, const Shape& shape, InterpretStats& stats) {
    std::vector<float> next = fresh_buffer(shape, layout_);
    View to = whole_view(next.data(), shape, layout_);
    const std::size_t rank = shape.size();
    Shape lo(rank), hi(rank);
    bool overlap = held_;
    for (std::size_t d = 0; d < rank && overlap; ++d) {
      lo[d] = std::max(origin[d], origin_[d]);
      hi[d] = std::min(origin[d] + shape[d], origin_[d] + shape_[d]);
      overlap = lo[d] < hi[d];
    }
    if (overlap) {
      const View from = whole_view(buffer_.data(), shape_, layout_);
      Shape extent(rank);
      for (std::size_t d = 0; d < rank; ++d) extent[d] = hi[d] - lo[d];
      Index src{}, dst{};
      for_each_index(extent, [&](const std::int64_t* i) {
        for (std::size_t d = 0; d < rank; ++d) {
          src[d] = lo[d] + i[d] - origin_[d];
          dst[d] = lo[d] + i[d] - origin[d];
        }
        to.at(dst.data()) = from.at(src.data());
        ++stats.window_shifts;
      });
    }
    Index at{};
    for_each_index(shape, [&](const std::int64_t* i) {
      bool kept = overlap;
      for (std::size_t d = 0; d < rank && kept; ++d) kept = origin[d] + i[d] >= lo[d] && origin[d] + i[d] < hi[d];
      if (kept) return;
      bool inside = true;
      for (std::size_t d = 0; d < rank; ++d) {
        at[d] = origin[d] + i[d] - (border_.empty() ? 0 : border_[d]);
        inside = inside && at[d] >= 0 && at[d] < whole.shape[d];
      }
      to.at(i) = inside ? whole.at(at.data()) : 0.0f;
      ++stats.window_loads;
    });
    buffer_ = std::move(next);
    origin_ = origin;
    shape_ = shape;
    held_ = true;
    return whole_view(buffer_.data(), shape_, layout_);
  }

 private:
  Layout layout_;
  Shape border_;
  std::vector<float> buffer_;
  Shape origin_, shape_;
  bool held_ = false;
};

class Interpreter {
 public:
  explicit Interpreter(InterpretStats& stats) : stats_(stats) {}

  void run(const ImplNode& n, const std::vector<View>& ops) {
    check_operand_views(n, ops);
    std::visit(overloaded{[&](const Loop& l) { loop(n, l, ops); },
                          [&](const MoveOp& m) { move(n, m, ops); },
                          [&](const Block& b) {
                            for (std::size_t i = 0; i < n.children.size(); ++i) {
                              run(*n.children[i], block_operands(b, i, ops));
                            }
                          },
                          [&](const Pipeline& p) { pipeline(n, p, ops); },
                          [&](const Reshape&) { reshape(n, ops); },
                          [&](const PadOp& p) { pad(n, p, ops); },
                          [&](const TapSplit& t) {
                            const auto children = tap_operands(n.spec, t, ops, [](const View& v, const Shape& at,
                                                                                  const Shape& shape) {
                              return v.sub(at, shape);
                            });
                            for (std::size_t i = 0; i < children.size(); ++i) run(*n.children[i], children[i]);
                          },
                          [&](const KernelCall& k) { run_kernel(k.kernel, n.spec, ops); },
                          [&](const Hole&) { hole(n.spec, ops); }},
               n.kind);
  }

 private:
  void loop(const ImplNode& n, const Loop& l, const std::vector<View>& ops) {
    const std::size_t axes = l.axes.size();
    std::vector<std::int64_t> trip(axes, 0);
    std::optional<Window> window;
    if (l.window) {
      KRIEK_ASSERT(l.window->operand < n.spec.input_count(), "a slide window holds an input");
      window.emplace(*l.window);
    }
    while (true) {
      std::uint32_t mask = 0;
      for (std::size_t a = 0; a < axes; ++a) {
        if (l.axes[a].remainder() != 0 && trip[a] == l.axes[a].trips() - 1) mask |= 1u << a;
      }
      const auto found = std::find(l.body_masks.begin(), l.body_masks.end(), mask);
      KRIEK_ASSERT(found != l.body_masks.end(), "no body for boundary pattern ", mask);
      const ImplNode& body = *n.children[static_cast<std::size_t>(found - l.body_masks.begin())];
      std::vector<View> inner;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const bool windowed = window && i == l.window->operand;
        Shape origin(ops[i].rank(), 0), shape = windowed ? window_source_shape(n.spec.operands[i], *l.window)
                                                         : ops[i].shape;
        loop_tile(l, i, trip, mask, origin, shape);
        if (windowed) {
          inner.push_back(window->advance(ops[i], origin, shape, stats_));
        } else {
          inner.push_back(ops[i].sub(origin, shape));
        }
      }
      run(body, inner);
      // Next iteration, the last axis fastest.
      std::size_t a = axes;
      while (a > 0 && ++trip[a - 1] == l.axes[a - 1].trips()) trip[--a] = 0;
      if (a == 0) return;
    }
  }

  void move(const ImplNode& n, const MoveOp& m, const std::vector<View>& ops) {
    if (m.alias) return run(*n.children[0], ops);
    std::vector<float> buffer = fresh_buffer(m.dest.shape, m.dest.layout);
    ++stats_.buffers;
    const View dest = whole_view(buffer.data(), m.dest.shape, m.dest.layout);
    const View source = ops[m.operand];
    std::size_t next = 1;
    if (m.load) run(*n.children[next++], {source, dest});
    std::vector<View> inner = ops;
    inner[m.operand] = dest;
    run(*n.children[0], inner);
    if (m.store) run(*n.children[next], {dest, source});
  }

  void pipeline(const ImplNode& n, const Pipeline& p, const std::vector<View>& ops) {
    std::vector<float> buffer = fresh_buffer(p.buffer.shape, p.buffer.layout);
    ++stats_.buffers;
    const View mid = whole_view(buffer.data(), p.buffer.shape, p.buffer.layout);
    const auto [head, tail] = pipeline_operands(n, ops, mid);
    run(*n.children[0], head);
    run(*n.children[1], tail);
  }

  void reshape(const ImplNode& n, const std::vector<View>& ops) {
    const ImplNode& body = *n.children[0];
    const auto maps = reshape_views(n.spec);
    std::vector<View> inner;
    for (std::size_t i = 0; i < ops.size(); ++i) inner.push_back(reshaped(ops[i], maps[i], body.spec.operands[i].shape));
    run(body, inner);
  }

  void pad(const ImplNode& n, const PadOp& p, const std::vector<View>& ops) {
    std::vector<float> buffer = fresh_buffer(p.buffer.shape, p.buffer.layout);
    ++stats_.buffers;
    const View whole = whole_view(buffer.data(), p.buffer.shape, p.buffer.layout);
    std::vector<View> border;
    for (const Box& strip : pad_border(n.spec)) border.push_back(whole.sub(strip.origin, strip.shape));
    const auto children = pad_operands(n.spec, ops, whole, border,
                                       [&](const Shape& at, const Shape& shape) { return whole.sub(at, shape); });
    for (std::size_t i = 0; i < children.size(); ++i) run(*n.children[i], children[i]);
  }

  void hole(const Spec& spec, const std::vector<View>& ops) {
    std::vector<std::vector<float>> dense;
    for (const View& v : ops) dense.push_back(gather(v));
    std::vector<const float*> inputs;
    for (std::size_t i = 0; i + 1 < dense.size(); ++i) inputs.push_back(dense[i].data());
    reference(spec, inputs, dense.back().data());
    scatter(ops.back(), dense.back());
  }

  InterpretStats& stats_;
};

}  // namespace

void interpret(const ImplPtr& impl, std::span<float* const> operands, InterpretStats& stats) {
  KRIEK_ASSERT(impl != nullptr, "interpret of a null Impl");
  KRIEK_ASSERT(operands.size() == impl->spec.operands.size(), "the Spec has ", impl->spec.operands.size(),
               " operands, ", operands.size(), " buffers given");
  std::vector<View> views;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const TensorSpec& t = impl->spec.operands[i];
    views.push_back(whole_view(operands[i], t.shape, t.layout));
  }
  Interpreter(stats).run(*impl, views);
}

void interpret(const ImplPtr& impl, std::span<float* const> operands) {
  InterpretStats stats;
  interpret(impl, operands, stats);
}

}  // namespace kriek
