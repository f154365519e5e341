// The buffers the lowering carves from a workspace: blocked panels a multiple of 4 KiB apart are moved one line
// apart more (lowering.h's carved_shape), and the kernels over them still compute the reference in both backends.
#include <catch2/catch.hpp>

#include "codegen/emit_c.h"
#include "codegen/lowering.h"
#include "codegen/run_checks.h"
#include "sched/schedule.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;
using namespace kriek::test;
using Catch::Matchers::Contains;

namespace {

TensorSpec blocked(Shape shape, std::uint8_t dim, std::uint32_t block) {
  TensorSpec t;
  t.shape = std::move(shape);
  t.dtype = Dtype::f32;
  t.level = Level::L2;
  t.layout = Layout::blocked(dim, block);
  return t;
}

}  // namespace

TEST_CASE("blocked panels a multiple of 4 KiB apart are carved a line further apart", "[codegen]") {
  // B's K x 16 panels: 256 and 512 rows (16 and 32 KiB) would share their L1 sets, 250 and 255 rows not.
  CHECK(carved_shape(blocked({256, 64}, 1, 16)) == Shape{257, 64});
  CHECK(carved_shape(blocked({512, 256}, 1, 16)) == Shape{513, 256});
  CHECK(carved_shape(blocked({250, 64}, 1, 16)) == Shape{250, 64});
  CHECK(carved_shape(blocked({255, 64}, 1, 16)) == Shape{255, 64});
  // Partial last panels count as whole: 256 x 40 is three panels of 16 KiB.
  CHECK(carved_shape(blocked({256, 40}, 1, 16)) == Shape{257, 40});
  // Panels of 64 columns (4 lines each): 64 rows make 16 KiB.
  CHECK(carved_shape(blocked({64, 128}, 1, 64)) == Shape{65, 128});
  // Filters in output-channel panels (Ohwi16o): 3x3x64 taps of 16 channels, 36 KiB, get a 65th input channel.
  CHECK(carved_shape(blocked({3, 3, 64, 64}, 3, 16)) == Shape{3, 3, 65, 64});
  // Rows in panels (blocked on dimension 0): the columns get one more.
  CHECK(carved_shape(blocked({64, 256}, 0, 16)) == Shape{64, 257});
}

TEST_CASE("one panel, panels of part of a line, other layouts and L1 buffers are carved as they are", "[codegen]") {
  CHECK(carved_shape(blocked({256, 16}, 1, 16)) == Shape{256, 16});  // one panel
  CHECK(carved_shape(blocked({512, 32}, 1, 8)) == Shape{512, 32});   // 32-byte panels
  TensorSpec row = blocked({256, 64}, 1, 16);
  row.layout = Layout::row_major();
  CHECK(carved_shape(row) == Shape{256, 64});
  CHECK(carved_shape(blocked({4096}, 0, 16)) == Shape{4096});  // rank 1: its panels are consecutive
  TensorSpec in_l1 = blocked({64, 64}, 1, 16);  // 4 KiB panels in L1: read where they are, not streamed
  in_l1.level = Level::L1;
  CHECK(carved_shape(in_l1) == Shape{64, 64});
  in_l1.level = Level::GL;
  CHECK(carved_shape(in_l1) == Shape{65, 64});
}

TEST_CASE("kernels over carved panels compute the reference in both backends", "[codegen]") {
  const Target target = named_target("avx512");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  auto dp = [&](const Spec& s) { return *synth.best(s, capacities(target)); };
  // B (256x48) packed into three 16-column panels of 16 KiB, carved from 257 rows: panel p starts 4112p floats
  // in (4096p uncarved), and the workspace holds the extra row.
  const Spec spec = parse_spec("matmul 24x256x48 f32 serial", target);
  const Schedule s = schedule(spec, target).move_input(1, Level::L2, Layout::blocked(1, 16)).complete(dp);
  REQUIRE(s.holes().empty());
  const CSource c = emit_c(s.impl(), target);
  CHECK_THAT(c.code, Contains("4112*") && !Contains("4096*"));
  CHECK(c.workspace_bytes >= 257 * 48 * 4);
  check_runs(s.impl(), target);
}
