// Random operands and the comparison with reference() (see reference_check.h).
#include "spec/reference_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "spec/reference.h"

namespace kriek {

std::vector<float*> Operands::pointers() {
  std::vector<float*> out;
  for (auto& b : buffers) out.push_back(b.data());
  return out;
}

std::vector<float> to_layout(const TensorSpec& t, const std::vector<float>& dense, float padding) {
  KRIEK_ASSERT(static_cast<std::int64_t>(dense.size()) == t.elements(), "to_layout of ", dense.size(),
               " values for ", t.elements(), " elements");
  if (t.dense_row_major()) return dense;
  std::vector<float> out(static_cast<std::size_t>(t.layout.buffer_elements(t.shape)), padding);
  std::size_t next = 0;
  for_each_index(t.shape, [&](const std::int64_t* i) { out[static_cast<std::size_t>(t.layout.offset(t.shape, i))] = dense[next++]; });
  return out;
}

std::vector<float> from_layout(const TensorSpec& t, const std::vector<float>& buffer) {
  KRIEK_ASSERT(static_cast<std::int64_t>(buffer.size()) == t.layout.buffer_elements(t.shape), "from_layout of ",
               buffer.size(), " values for a buffer of ", t.layout.buffer_elements(t.shape));
  if (t.dense_row_major()) return buffer;
  std::vector<float> out;
  out.reserve(static_cast<std::size_t>(t.elements()));
  for_each_index(t.shape, [&](const std::int64_t* i) { out.push_back(buffer[static_cast<std::size_t>(t.layout.offset(t.shape, i))]); });
  return out;
}

Operands random_operands(const Spec& spec, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Operands ops;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const TensorSpec& t = spec.operands[i];
    const bool output = i + 1 == spec.operands.size();
    std::vector<float> b(static_cast<std::size_t>(t.elements()), std::numeric_limits<float>::quiet_NaN());
    if (!output || accumulates(spec.op)) {
      for (float& x : b) x = uniform(rng);
    }
    ops.buffers.push_back(to_layout(t, b, output ? std::numeric_limits<float>::quiet_NaN() : 0.0f));
    ops.dense.push_back(std::move(b));
  }
  return ops;
}

Verification check_against_reference(const Spec& spec, std::uint64_t seed,
                                     const std::function<void(const std::vector<float*>&)>& implementation) {
  Operands ops = random_operands(spec, seed);
  std::vector<float> expected = ops.dense.back();
  std::vector<const float*> inputs;
  for (std::size_t i = 0; i + 1 < ops.dense.size(); ++i) inputs.push_back(ops.dense[i].data());
  reference(spec, inputs, expected.data());
  implementation(ops.pointers());
  const std::vector<float> got = from_layout(spec.output(), ops.buffers.back());
  Verification v;
  double scale = 1;
  for (float e : expected) scale = std::max(scale, static_cast<double>(std::fabs(e)));
  const double outputs = static_cast<double>(std::max<std::size_t>(1, expected.size()));
  const double reduction = std::max(1.0, flop_count(spec) / outputs);
  v.tolerance = 2 * std::numeric_limits<float>::epsilon() * reduction * scale;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::isnan(got[i]) != std::isnan(expected[i]) ? std::numeric_limits<double>::infinity()
                     : std::isnan(got[i])                           ? 0.0
                                                                     : std::fabs(double(got[i]) - double(expected[i]));
    if (v.worst < 0 || e > v.max_error) {
      v.max_error = e;
      v.worst = static_cast<std::int64_t>(i);
    }
  }
  return v;
}

}  // namespace kriek
