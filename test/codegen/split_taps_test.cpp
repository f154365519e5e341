// A padded conv's taps each over only the outputs that read the image (split_taps, impl/taps.h) through both
// backends: the DP's picks of late-layer-like convs, where skipping the padding's products pays, and seeded
// random hand schedules that cut rows and columns at any stride and padding.
#include <catch2/catch.hpp>

#include "codegen/run_checks.h"
#include "impl/printer.h"
#include "sched/schedule.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::test;
using Catch::Matchers::Contains;

TEST_CASE("the DP skips a small image's padding by its taps, through both backends", "[codegen][split_taps]") {
  // 5x5 outputs at pad 1: the border taps are 28% of the work.
  for_each_pick({"avx512", "avx2"}, {"conv[pad=1] 1x5x5x64 3x3x64x64 f32"},
                [](const Target& target, const ImplPtr& impl) {
                  CHECK_THAT(print_impl(impl), Contains("taps[fh]") && Contains("taps[fw]"));
                  check_runs(impl, target);
                });
}

TEST_CASE("random padded convs with their taps split by hand, through both backends", "[codegen][split_taps]") {
  RandomSchedules r(20261208);
  INFO("seed " << r.seed << " (set KRIEK_SEED to replay)");
  auto dp = [&](const Spec& s) { return r.best(s); };
  std::vector<ImplPtr> impls;
  for (int i = 0; i < 6; ++i) {
    const std::int64_t window = r.pick(2, 5), pad = r.pick(1, window - 1), stride = r.pick(1, 2);
    const std::int64_t h = r.pick(1, 9), w = r.pick(std::max<std::int64_t>(1, window - 2 * pad), 9);
    const std::string text = conv_text(std::max(h, window - 2 * pad), w, r.pick(1, 8), window, r.pick(1, 20),
                                       stride, pad);
    INFO("spec " << text);
    const Spec spec = parse_spec(text, r.target);
    Schedule s = schedule(spec, r.target).to_accum().focus("h2").apply(SplitTaps{0});
    // Some row taps cut into their columns' too (the holes after h1, the zero, are the row taps).
    const std::size_t taps = s.holes().size() - 1;
    std::size_t next = 2;
    for (std::size_t t = 0; t < taps; ++t) {
      if (r.pick(0, 1) == 0) {
        ++next;
        continue;
      }
      const std::size_t before = s.holes().size();
      s = s.focus("h" + std::to_string(next)).apply(SplitTaps{1});
      next += s.holes().size() - before + 1;
    }
    impls.push_back(s.complete(dp).impl());
  }
  check_all_run(impls, r.target);
}
