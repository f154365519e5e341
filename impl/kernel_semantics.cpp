// Kernel semantics on views: copies, zeroing, elementwise ops with broadcasting, multiply-accumulate (scalar
// and broadcast-FMA outer products, batched or not) and summing reductions.
#include "impl/kernel_semantics.h"

#include <algorithm>

#include "spec/overloaded.h"

namespace kriek {
namespace {

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

}  // namespace

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
    case KernelKind::bcast_fma: mult_add(ops[0], ops[1], out); return;
    case KernelKind::scalar_reduce_add: reduce_add(std::get<ReduceSum>(spec.op).axis, ops[0], out); return;
  }
  KRIEK_ASSERT(false, "no semantics for kernel ", static_cast<int>(k));
}

}  // namespace kriek
