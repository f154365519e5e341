// The cost model's constants from a measured target profile (spec/profile.h): each constant is the time of the
// resource it stands for, in 1/16 cycles, from the measurement of that resource. Constants no measurement covers
// (a loop iteration, a buffer's set-up) keep their defaults.
#include <algorithm>
#include <cmath>

#include "impl/cost.h"
#include "spec/profile.h"

namespace kriek {
namespace {

constexpr double kUnitsPerCycle = 16;
constexpr double kLineBytes = 64;

/// `cycles` in Cost units, at least 1.
Cost units(double cycles) { return static_cast<Cost>(std::max<long long>(1, std::llround(cycles * kUnitsPerCycle))); }

/// The widest vector the target computes with, in bits (32: scalar).
int widest_bits(const Target& target) { return target.vector_bytes > 0 ? target.vector_bytes * 8 : 32; }

}  // namespace

void CostModel::apply_profile(const TargetProfile& p, const Target& target) {
  const CostModel defaults;
  const std::string bits = std::to_string(widest_bits(target)) + "b";
  if (target.isa != Isa::scalar) {
    vector_fma = units(1 / p.value("fma-per-cycle." + bits));
    vector_load = units(1 / p.value("loads-per-cycle"));
    vector_broadcast = units(1 / p.value("broadcasts-per-cycle"));
    // AVX2 has no memory operands broadcast: its FMAs take a register broadcast.
    vector_broadcast_operand = target.isa == Isa::avx512 ? units(1 / p.value("broadcast-operands-per-cycle"))
                                                         : vector_broadcast;
    vector_store = units(1 / p.value("stores-per-cycle"));
    vector_op = units(1 / p.value("vector-ops-per-cycle"));
  }
  fma_latency = units(p.value("fma-latency." + bits));
  scalar_op = units(1 / p.value("fma-per-cycle.32b"));
  // Lines into a faster cache at the rate a stream reads them from where they are. Main memory as the search's
  // Specs see it is the L3: operands of the sizes kriek tiles (up to tens of MiB) stay there between calls.
  const auto line_time = [&](const char* level) { return units(kLineBytes / p.value(std::string("read-bandwidth.") + level)); };
  line_from[static_cast<std::size_t>(Level::GL)] = line_time("L3");
  line_from[static_cast<std::size_t>(Level::L2)] = line_time("L2");
  line_from[static_cast<std::size_t>(Level::L1)] = line_time("L1");
  // A single element from a level costs what it did against a line before, in proportion.
  for (Level l : {Level::GL, Level::L2, Level::L1}) {
    const auto i = static_cast<std::size_t>(l);
    element_access[i] = std::max<Cost>(1, defaults.element_access[i] * line_from[i] / defaults.line_from[i]);
  }
  // Rows of a strided tile against one contiguous run of the same bytes.
  const double strided = p.value("pack-contiguous") / p.value("pack-strided");
  strided_percent = static_cast<Cost>(std::clamp(std::lround((strided - 1) * 100), 0L, 400L));
  parallel_launch = units(p.value("parallel-launch"));
  // A kernel's reads of another core's lines overlap in part, between one at a time (the latency) and as many as
  // the core keeps in flight (the stream): the geometric mean of the two. Sapphire Rapids, 2 cores: 270-345 and
  // 10-12 cycles, 51-65 between them; the kernels showed 67 (conv 1x28x28x512 1x1x512x128, packed filters read by
  // both cores) and 124 (conv1's padded image read whole by both) cycles per line. One CPU measures nothing and
  // keeps the default, which its serial kernels never pay.
  const double latency = p.value("cross-core-latency"), stream = p.value("cross-core-stream");
  if (latency > 0 && stream > 0) cross_core_line = units(std::sqrt(latency * stream));
}

}  // namespace kriek
