// Reference semantics (spec/reference.h): naive loops on dense row-major buffers for every op kind, Compose
// included. Everything else (interpreter, synthesized Impls, generated code) is checked against this.
#include <algorithm>
#include <vector>

#include "spec/conv_geometry.h"
#include "spec/error.h"
#include "spec/overloaded.h"
#include "spec/reference.h"

namespace kriek {
namespace {

void run_primitive(const PrimitiveOp& op, const std::vector<Shape>& shapes, std::span<const float* const> in,
                   float* out) {
  const Shape& os = shapes.back();
  const std::int64_t n_out = volume(os);
  if (!accumulates(op)) std::fill(out, out + n_out, 0.0f);
  std::visit(
      overloaded{
          [&](const Matmul&) {
            const Shape& a = shapes[0];
            const std::size_t r = a.size();
            const std::int64_t batch = r == 3 ? a[0] : 1, m = a[r - 2], k = a[r - 1], n = os[r - 1];
            for (std::int64_t b = 0; b < batch; ++b)
              for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < n; ++j) {
                  float acc = out[(b * m + i) * n + j];
                  for (std::int64_t p = 0; p < k; ++p) acc += in[0][(b * m + i) * k + p] * in[1][(b * k + p) * n + j];
                  out[(b * m + i) * n + j] = acc;
                }
          },
          [&](const Conv& conv) {
            const ConvGeometry g = conv_geometry(conv, shapes[0], shapes[1]);
            for (std::int64_t b = 0; b < g.batch; ++b)
              for (std::int64_t y = 0; y < g.oh; ++y)
                for (std::int64_t x = 0; x < g.ow; ++x)
                  for (std::int64_t o = 0; o < g.f; ++o) {
                    float acc = out[((b * g.oh + y) * g.ow + x) * g.f + o];
                    for (std::int64_t i = 0; i < g.fh; ++i) {
                      const std::int64_t iy = y * g.stride[0] + i - g.pad[0];
                      if (iy < 0 || iy >= g.h) continue;  // padding reads 0
                      for (std::int64_t j = 0; j < g.fw; ++j) {
                        const std::int64_t ix = x * g.stride[1] + j - g.pad[1];
                        if (ix < 0 || ix >= g.w) continue;
                        for (std::int64_t ch = 0; ch < g.c; ++ch)
                          acc += in[0][((b * g.h + iy) * g.w + ix) * g.c + ch] * in[1][((i * g.fw + j) * g.c + ch) * g.f + o];
                      }
                    }
                    out[((b * g.oh + y) * g.ow + x) * g.f + o] = acc;
                  }
          },
          [&](const Move&) { std::copy(in[0], in[0] + n_out, out); },
          [&](const Zero&) {},
          [&](const Unary&) {
            for (std::int64_t i = 0; i < n_out; ++i) out[i] = std::max(in[0][i], 0.0f);
          },
          [&](const Binary& b) {
            const std::size_t r = os.size();
            std::vector<std::int64_t> idx(r, 0);
            for (std::int64_t e = 0; e < n_out; ++e) {
              std::int64_t rem = e;
              for (std::size_t d = r; d-- > 0;) idx[d] = rem % os[d], rem /= os[d];
              float v[2];
              for (int s = 0; s < 2; ++s) {
                std::int64_t off = 0;
                for (std::size_t d = 0; d < r; ++d) off = off * shapes[s][d] + (shapes[s][d] == 1 ? 0 : idx[d]);
                v[s] = in[s][off];
              }
              switch (b.op) {
                case BinaryOp::add: out[e] = v[0] + v[1]; break;
                case BinaryOp::mul: out[e] = v[0] * v[1]; break;
                case BinaryOp::sub: out[e] = v[0] - v[1]; break;
                case BinaryOp::max: out[e] = std::max(v[0], v[1]); break;
              }
            }
          },
          [&](const ReduceSum& rs) {
            const Shape& is = shapes[0];
            std::int64_t outer = 1, inner = 1;
            for (std::size_t d = 0; d < rs.axis; ++d) outer *= is[d];
            for (std::size_t d = rs.axis + 1; d < is.size(); ++d) inner *= is[d];
            for (std::int64_t o = 0; o < outer; ++o)
              for (std::int64_t a = 0; a < is[rs.axis]; ++a)
                for (std::int64_t i = 0; i < inner; ++i) out[o * inner + i] += in[0][(o * is[rs.axis] + a) * inner + i];
          }},
      op);
}

}  // namespace

void reference(const Spec& spec, std::span<const float* const> inputs, float* output) {
  KRIEK_ASSERT(inputs.size() == spec.input_count(), "reference needs ", spec.input_count(), " inputs");
  std::vector<Shape> shapes;
  for (const auto& t : spec.operands) shapes.push_back(t.shape);
  const auto* c = std::get_if<Compose>(&spec.op);
  if (!c) return run_primitive(*primitive(spec.op), shapes, inputs, output);
  std::vector<Shape> in_shapes(shapes.begin(), shapes.end() - 1);
  auto mids = compose_intermediate_shapes(*c, in_shapes);
  std::vector<float> carried;
  std::size_t next = 0;
  for (std::size_t s = 0; s < c->stages.size(); ++s) {
    std::vector<const float*> args;
    std::vector<Shape> arg_shapes;
    if (s > 0) args.push_back(carried.data()), arg_shapes.push_back(mids[s - 1]);
    while (args.size() < input_count(c->stages[s])) args.push_back(inputs[next]), arg_shapes.push_back(shapes[next++]);
    const bool last = s + 1 == c->stages.size();
    arg_shapes.push_back(last ? shapes.back() : mids[s]);
    std::vector<float> result(last ? 0 : static_cast<std::size_t>(volume(mids[s])));
    run_primitive(c->stages[s], arg_shapes, args, last ? output : result.data());
    carried = std::move(result);
  }
}

}  // namespace kriek
