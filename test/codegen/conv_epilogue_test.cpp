// A conv's epilogue (bias and relu, or a residual add) fused into its register tiles: the DP's picks of padded and
// strided convs with epilogues slide or pad their image like the conv alone, apply the epilogue to each register
// tile before its one store, and compute the reference through both backends; hand-slid ones too.
#include <catch2/catch.hpp>

#include "codegen/run_checks.h"
#include "impl/printer.h"
#include "sched/schedule.h"
#include "spec/text.h"

using namespace kriek;
using namespace kriek::test;
using Catch::Matchers::Contains;

namespace {

/// True when some pipeline of `impl` buffers its intermediate in a memory level (an epilogue not fused).
bool buffers_in_memory(const ImplNode& n) {
  if (const auto* p = std::get_if<Pipeline>(&n.kind); p && !is_register_level(p->buffer.level)) return true;
  for (const ImplPtr& c : n.children) {
    if (buffers_in_memory(*c)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the DP fuses a padded conv's epilogue into its register tiles, through both backends",
          "[codegen][slide]") {
  for_each_pick({"avx512", "avx2"},
                {"compose[conv[pad=1], add, relu] 1x8x8x16 3x3x16x16 1x1x1x16 f32",
                 "compose[conv[stride=2,pad=1], add, relu] 1x11x9x3 3x3x3x16 1x1x1x16 f32",
                 "compose[conv[pad=1], add] 1x12x7x8 3x3x8x16 1x12x7x16 f32"},
                [](const Target& target, const ImplPtr& impl) {
                  const std::string printed = print_impl(impl);
                  CHECK_THAT(printed, Contains("pipeline[cut 1, VRF"));
                  CHECK((printed.find("slide[") != std::string::npos || printed.find("pad[") != std::string::npos));
                  CHECK_FALSE(buffers_in_memory(*impl));
                  check_runs(impl, target);
                });
}

TEST_CASE("a padded conv with a bias and relu slid by hand along rows and columns, through both backends",
          "[codegen][slide]") {
  RandomSchedules r(20261207);
  INFO("seed " << r.seed << " (set KRIEK_SEED to replay)");
  auto dp = [&](const Spec& s) { return r.best(s); };
  std::vector<ImplPtr> impls;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t f = 3, pad = r.pick(1, 2), stride = r.pick(1, 2), h = r.pick(4, 11), w = r.pick(4, 11);
    const std::int64_t channels = r.pick(1, 4), filters = i % 2 == 0 ? 16 : r.pick(1, 9);
    const auto n = [](std::int64_t v) { return std::to_string(v); };
    const std::string text = "compose[conv[stride=" + n(stride) + ",pad=" + n(pad) + "], add, relu] 1x" + n(h) +
                             "x" + n(w) + "x" + n(channels) + " " + n(f) + "x" + n(f) + "x" + n(channels) + "x" +
                             n(filters) + " 1x1x1x" + n(filters) + " f32";
    INFO("spec " << text);
    const Spec spec = parse_spec(text, r.target);
    const auto dim = static_cast<std::uint8_t>(1 + i % 2);
    const std::int64_t extent = spec.output().shape[dim];
    if (extent < 2) continue;
    const std::int64_t size = r.pick(1, extent - 1);
    INFO("slide " << int(dim) << " " << size);
    impls.push_back(schedule(spec, r.target).slide(dim, size, Level::L1).complete(dp).impl());
    REQUIRE_THAT(print_impl(impls.back()), Contains("slide["));
  }
  REQUIRE(impls.size() >= 2);
  check_all_run(impls, r.target);
}
