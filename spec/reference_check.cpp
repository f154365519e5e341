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

Operands random_operands(const Spec& spec, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Operands ops;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const auto n = static_cast<std::size_t>(spec.operands[i].elements());
    const bool output = i + 1 == spec.operands.size();
    std::vector<float> b(n, std::numeric_limits<float>::quiet_NaN());
    if (!output || accumulates(spec.op)) {
      for (float& x : b) x = uniform(rng);
    }
    ops.buffers.push_back(std::move(b));
  }
  return ops;
}

Verification check_against_reference(const Spec& spec, std::uint64_t seed,
                                     const std::function<void(const std::vector<float*>&)>& implementation) {
  Operands ops = random_operands(spec, seed);
  std::vector<float> expected = ops.buffers.back();
  std::vector<const float*> inputs;
  for (std::size_t i = 0; i + 1 < ops.buffers.size(); ++i) inputs.push_back(ops.buffers[i].data());
  reference(spec, inputs, expected.data());
  implementation(ops.pointers());
  const std::vector<float>& got = ops.buffers.back();
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
