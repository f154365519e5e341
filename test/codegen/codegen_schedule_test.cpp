// Code generation of hand-written schedules, through both backends (C and LLVM): parallel loops whose bodies pack
// into per-thread buffers, packing into blocked layouts feeding the micro-kernel, AVX2 and scalar targets, a
// golden file of the emitted C, LLVM objects (with kriek's runtime for parallel loops), and the errors: partial
// Impls, compiler failures, missing entry points.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <fstream>

#include "codegen/compile.h"
#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/kernel_runtime.h"
#include "codegen/measure.h"
#include "codegen/run_checks.h"
#include "impl/printer.h"
#include "sched/schedule.h"
#include "spec/text.h"
#include "support/golden.h"
#include "support/random_spec.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;
using namespace kriek::test;
using Catch::Matchers::Contains;

namespace {

/// matmul 40x24x48 on `target`: B packed once into blocked panels (shared by all threads), then parallel tiles of
/// C with a boundary row, each packing its rows of A into a buffer of its own; the DP completes the rest.
Schedule packed_parallel_schedule(const Target& target) {
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  auto dp = [&](const Spec& s) { return *synth.best(s, capacities(target)); };
  const Spec spec = parse_spec("matmul 40x24x48 f32", target);
  Schedule s = schedule(spec, target)
                   .move_input(1, Level::L2, Layout::blocked(1, target.vector_elements(Dtype::f32)))
                   .tile_out({16, 16}, true)
                   .move_input(0, Level::L1, Layout::col_major())
                   .complete(dp);
  REQUIRE(s.holes().empty());
  return s;
}

}  // namespace

TEST_CASE("parallel tiles pack into per-thread buffers, a buffer outside is shared", "[codegen]") {
  const Target target = named_target("avx512");
  const Schedule s = packed_parallel_schedule(target);
  const CSource c = emit_c(s.impl(), target);
  CHECK(c.uses_openmp);
  // One parallel loop over all 3x3 tiles, the boundary row's among them: each trip branches to its body.
  std::size_t loops = 0;
  for (std::size_t at = c.code.find("#pragma omp parallel for"); at != std::string::npos;
       at = c.code.find("#pragma omp parallel for", at + 1)) {
    ++loops;
  }
  CHECK(loops == 1);
  CHECK_THAT(c.code, Contains("collapse(2)") && Contains(" < 2)"));
  CHECK_THAT(c.code, Contains("_workspace();"));
  CHECK(c.workspace_bytes > 24 * 48 * 4);
  check_runs(s.impl(), target, 2);
  check_runs(s.impl(), target, 1);
}

TEST_CASE("parallel loops through both backends on this machine, on 2 threads and 1", "[codegen][llvm]") {
  const Target target = named_target(host_runs(named_target("avx512")) ? "avx512" : "avx2");
  const Schedule s = packed_parallel_schedule(target);
  const std::string ir = emit_llvm_ir(s.impl(), target);
  CHECK_THAT(ir, Contains("call void @kriek_parallel_for(") && Contains("_workspace()"));
  check_runs(s.impl(), target, 2);
  check_runs(s.impl(), target, 1);
}

TEST_CASE("an LLVM object file links into a shared library that computes the reference", "[codegen][llvm]") {
  const Target target = named_target(host_runs(named_target("avx512")) ? "avx512" : "avx2");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  auto dp = [&](const Spec& s) { return *synth.best(s, capacities(target)); };
  // B packed into a workspace buffer: the object's thread-local workspace is used.
  const Spec spec = parse_spec("matmul 24x16x32 f32", target);
  const Schedule s = schedule(spec, target)
                         .move_input(1, Level::L2, Layout::blocked(1, target.vector_elements(Dtype::f32)))
                         .complete(dp);
  REQUIRE(s.holes().empty());
  TempDir dir;
  CHECK_FALSE(write_llvm_object(s.impl(), target, dir.path / "k.o", "kriek_obj"));
  link_shared_library({dir.path / "k.o"}, false, dir.path / "libk.so");
  const LoadedKernel k = LoadedKernel::load(dir.path / "libk.so", "kriek_obj");
  for (std::uint64_t seed : {1, 2}) CHECK(verify(k, spec, seed).ok());
  CHECK(emit_c(s.impl(), target).workspace_bytes > 0);
}

TEST_CASE("an LLVM object with parallel loops runs on kriek's runtime object, on 2 threads", "[codegen][llvm]") {
  const Target target = named_target(host_runs(named_target("avx512")) ? "avx512" : "avx2");
  const Schedule s = packed_parallel_schedule(target);
  TempDir dir;
  REQUIRE(write_llvm_object(s.impl(), target, dir.path / "k.o", "kriek_par"));
  {
    std::ofstream runtime(dir.path / "runtime.o", std::ios::binary);
    runtime << kernel_runtime_object();
  }
  link_shared_library({dir.path / "k.o", dir.path / "runtime.o"}, false, dir.path / "libk.so", kKernelRuntimeLibraries);
  const LoadedKernel k = LoadedKernel::load(dir.path / "libk.so", "kriek_par");
  // The runtime's symbols stay inside the library (two libraries never clash over them).
  CHECK_THROWS_WITH(LoadedKernel::load(dir.path / "libk.so", "kriek_parallel_for"), Contains("no function"));
  for (std::uint64_t seed : {1, 2}) CHECK(verify(k, s.impl()->spec, seed).ok());
}

TEST_CASE("a partial Impl is an error for LLVM too", "[codegen][llvm][errors]") {
  const Target target = named_target("avx2");
  const Spec spec = parse_spec("matmul 32x8x32 f32", target);
  const Schedule partial = schedule(spec, target).tile_out({16, 16});
  CHECK_THROWS_WITH(emit_llvm_ir(partial.impl(), target), Contains("hole h1"));
  CHECK_THROWS_WITH(jit_compile(partial.impl(), target), Contains("hole h1"));
}

TEST_CASE("AVX2 and scalar targets: every frontier entry runs", "[codegen]") {
  for (const char* name : {"avx2", "scalar"}) {
    const Target target = named_target(name);
    Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
    std::vector<ImplPtr> impls;
    for (const char* text : {"matmul 13x7x24 f32", "conv 6x7x3 3x2x3x8 f32", "relu 5x19 f32"}) {
      const Spec spec = parse_spec(text, target);
      const Frontier& f = synth.solve(spec);
      REQUIRE_FALSE(f.empty());
      for (std::size_t e = 0; e < f.entries.size(); ++e) impls.push_back(synth.reconstruct(spec, e));
    }
    INFO("target " << name);
    check_all_run(impls, target);
  }
}

TEST_CASE("operands in panels narrower than a vector: every frontier entry runs", "[codegen]") {
  // A vector move may take part of a panel (4 of a register of 8 at 4*i) but never cross into the next one.
  const Target target = named_target("avx2");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  std::vector<ImplPtr> impls;
  for (const char* text : {"matmul (12x5 f32 GL row, 5x17 f32 GL blk1:4 -> 12x17 f32 GL row)",
                           "conv[acc] (9x8x3 f32 GL row, 3x2x3x10 f32 GL blk3:4 -> 7x7x10 f32 GL row)"}) {
    const Spec spec = parse_spec(text, target);
    const Frontier& f = synth.solve(spec);
    REQUIRE_FALSE(f.empty());
    for (std::size_t e = 0; e < f.entries.size(); ++e) impls.push_back(synth.reconstruct(spec, e));
  }
  check_all_run(impls, target);
}

TEST_CASE("the micro-kernel with a boundary row block and several vectors per row", "[codegen]") {
  const Target target = named_target("avx512");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  for (const char* text : {"matmul 7x5x32 f32", "matmul[acc] 13x9x48 f32", "compose[matmul, relu] 9x4 4x16 f32",
                           "compose[matmul, add] 11x3 3x16 1x16 f32"}) {
    const Spec spec = parse_spec(text, target);
    const ImplPtr impl = *synth.best(spec, capacities(target));
    INFO(text);
    CHECK_THAT(emit_c(impl, target).code, Contains("_mm512_fmadd_ps"));
    check_runs(impl, target);
  }
}

TEST_CASE("odd widths stay vectorized in register panels, the last register of each row masked", "[codegen]") {
  // AVX2 runs here; AVX-512 is compiled (and run where the machine has it).
  for_each_pick({"avx2", "avx512"}, {"matmul 6x5x13 f32", "matmul[acc] 5x3x21 f32", "matmul 9x4x3 f32"},
                [](const Target& target, const ImplPtr& impl) {
                  const bool avx2 = target.isa == Isa::avx2;
                  const std::string code = emit_c(impl, target).code;
                  CHECK_THAT(code, Contains(avx2 ? "_mm256_maskload_ps" : "_mm512_maskz_loadu_ps"));
                  CHECK_THAT(code, Contains(avx2 ? "_mm_store" : "_mm512_mask_storeu_ps"));
                  check_runs(impl, target);
                });
}

TEST_CASE("rows summed a register of rows at a time, the sums transposed into lanes (vec_sum_runs)", "[codegen]") {
  // AVX2 runs here; AVX-512 is compiled (and run where the machine has it).
  for_each_pick({"avx2", "avx512"}, {"reducesum[axis=1] 32x64 f32", "reducesum[axis=2] 2x16x48 f32"},
                [](const Target& target, const ImplPtr& impl) {
                  const std::string code = emit_c(impl, target).code;
                  CHECK_THAT(code, Contains("vec_sum_runs("));
                  // The tree: horizontal adds on AVX2, blends and two-register shuffles on AVX-512.
                  CHECK_THAT(code, Contains(target.isa == Isa::avx2 ? "_mm256_hadd_ps" : "_mm512_permutex2var_ps"));
                  check_runs(impl, target);
                });
}

TEST_CASE("vec_sum_runs on AVX-512 starts rows of odd strides at their cache lines and masks the ends", "[codegen]") {
  const Target target = named_target("avx512");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  // Row strides of 333, 229 and 250 floats: each row's first line at another lane, 0 to 30 lanes left after the
  // registers every row has; 16x45's rows are too short to pay, 32x256's 256 apart: both keep the plain loop.
  const std::pair<const char*, bool> cases[] = {{"reducesum[axis=1] 40x333 f32", true},
                                                {"reducesum[axis=2] 2x16x229 f32", true},
                                                {"reducesum[axis=1] 16x250 f32", true},
                                                {"reducesum[axis=1] 16x45 f32", false},
                                                {"reducesum[axis=1] 32x256 f32", false}};
  for (const auto& [text, peeled] : cases) {
    const Spec spec = parse_spec(text, target);
    const ImplPtr impl = *synth.best(spec, capacities(target));
    INFO(text);
    const std::string code = emit_c(impl, target).code;
    REQUIRE_THAT(code, Contains("vec_sum_runs("));
    CHECK((code.find("& 63u) >> 2") != std::string::npos) == peeled);  // the lanes before each row's first line
    check_runs(impl, target);
  }
}

TEST_CASE("matrix-vector products use dot_fma on AVX-512 and AVX2, with several chains", "[codegen]") {
  for_each_pick({"avx512", "avx2"}, {"matmul 5x256x1 f32", "matmul 3x48x1 f32", "matmul[acc] 1x64x1 f32"},
                [](const Target& target, const ImplPtr& impl) {
                  CHECK_THAT(emit_c(impl, target).code, Contains("dot_fma("));
                  check_runs(impl, target);
                });
  // By hand: one dot product of 256 (16 registers: 8 chains on AVX-512) from row-major and column operands.
  const Target target = named_target("avx512");
  const Spec spec = parse_spec("matmul[acc] 1x256x1 f32", target);
  const Schedule s = schedule(spec, target).move_output(Level::RF).select(KernelKind::dot_fma).complete();
  const std::string code = emit_c(s.impl(), target).code;
  CHECK_THAT(code, Contains("acc7") && Contains("_mm512_reduce_add_ps"));
  check_runs(s.impl(), target);
}

TEST_CASE("a narrow rhs transposed into L1 and read by tiles of dots on AVX-512 and AVX2", "[codegen]") {
  // The DP's picks: the rhs copied column-major (a loop of one-element copies), then dot_fma on tiles of rows.
  for_each_pick({"avx512", "avx2"}, {"matmul 17x160x3 f32", "matmul 2x20x64x2 f32", "matmul 9x100x3 f32"},
                [](const Target& target, const ImplPtr& impl) {
                  bool col = false, tile = false;
                  const std::function<void(const ImplNode&)> visit = [&](const ImplNode& n) {
                    if (const auto* m = std::get_if<MoveOp>(&n.kind)) col |= m->dest.layout == Layout::col_major();
                    if (const auto* k = std::get_if<KernelCall>(&n.kind)) {
                      tile |= k->kernel == KernelKind::dot_fma && n.spec.output().elements() > 1;
                    }
                    for (const ImplPtr& c : n.children) visit(*c);
                  };
                  visit(*impl);
                  CHECK(col);
                  CHECK(tile);
                  check_runs(impl, target);
                });
  // By hand: 5 x 4 dots (the most that fit AVX-512's registers beside their runs) over 3 steps, the rhs given
  // column-major, accumulating into the output where it is: their lanes in transpose trees, a register of 16 dots
  // and one of 4 (the rest zeros). 2 x 2 dots: each dot's lanes alone.
  const Target target = named_target("avx512");
  const Spec tree = parse_spec("matmul[acc] (5x48 f32 GL row, 48x4 f32 GL col -> 5x4 f32 GL row)", target);
  const Schedule t = schedule(tree, target).select(KernelKind::dot_fma).complete();
  CHECK_THAT(emit_c(t.impl(), target).code,
             Contains("_mm512_permutex2var_ps") && !Contains("_mm512_reduce_add_ps"));
  check_runs(t.impl(), target);
  const Spec alone = parse_spec("matmul[acc] (2x48 f32 GL row, 48x2 f32 GL col -> 2x2 f32 GL row)", target);
  const Schedule a = schedule(alone, target).select(KernelKind::dot_fma).complete();
  CHECK_THAT(emit_c(a.impl(), target).code,
             !Contains("_mm512_permutex2var_ps") && Contains("_mm512_reduce_add_ps"));
  check_runs(a.impl(), target);
  // Runs of 40: two whole registers and a masked half (a single dot's chains, and a tile's).
  for (const char* text : {"matmul[acc] (1x40 f32 GL row, 40x1 f32 GL col -> 1x1 f32 GL row)",
                           "matmul[acc] (3x40 f32 GL row, 40x3 f32 GL col -> 3x3 f32 GL row)"}) {
    const Schedule d = schedule(parse_spec(text, target), target).select(KernelKind::dot_fma).complete();
    CHECK_THAT(emit_c(d.impl(), target).code, Contains("_mm512_maskz_loadu_ps"));
    check_runs(d.impl(), target);
  }
  const Target avx2 = named_target("avx2");  // 8 lanes: 4 dots make a tree
  const Spec four = parse_spec("matmul[acc] (2x36 f32 GL row, 36x2 f32 GL col -> 2x2 f32 GL row)", avx2);
  const Schedule f = schedule(four, avx2).select(KernelKind::dot_fma).complete();
  CHECK_THAT(emit_c(f.impl(), avx2).code, Contains("_mm256_hadd_ps"));
  check_runs(f.impl(), avx2);
}

TEST_CASE("slide windows of padded and strided convs through both backends: border rows zeroed, never read",
          "[codegen][slide]") {
  // Random convs (padding 0-3, stride 1-3, odd sizes), each slid along its rows or its columns by a random size
  // (boundary iterations included), the window in L1 or L2; the DP completes the body (vector kernels on the
  // window) or the default schedule does (scalar ones). The iterations whose window reaches the border are
  // emitted apart from the loop over the others: first, last, and where stride and pad make several of each.
  RandomSchedules r(20261127);
  INFO("seed " << r.seed << " (set KRIEK_SEED to replay)");
  const Target& target = r.target;
  auto dp = [&](const Spec& s) { return r.best(s); };
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return r.pick(lo, hi); };
  std::vector<ImplPtr> impls;
  for (int i = 0; i < 10; ++i) {
    const std::int64_t f = pick(1, 3) * 2 + 1 - (i % 4 == 3 ? 1 : 0);
    const std::int64_t pad = pick(i % 2, std::min<std::int64_t>(3, f - 1));
    const std::int64_t stride = pick(1, 3), h = pick(f, 13), w = pick(f, 13);
    const std::int64_t channels = i % 3 == 0 ? 16 : pick(1, 5), filters = i % 3 == 0 ? 16 : pick(1, 9);
    const std::string text = conv_text(h, w, channels, f, filters, stride, pad);
    INFO("spec " << text);
    const Spec spec = parse_spec(text, target);
    const auto dim = static_cast<std::uint8_t>(1 + i % 2);
    const std::int64_t extent = spec.output().shape[dim];
    if (extent < 2) continue;
    const std::int64_t size = pick(1, extent - 1);
    INFO("slide " << int(dim) << " " << size);
    const Schedule slid = schedule(spec, target).slide(dim, size, i % 3 == 1 ? Level::L2 : Level::L1);
    const ImplPtr impl = i % 2 == 0 ? slid.complete(dp).impl() : slid.complete().impl();
    REQUIRE(print_impl(impl).find("slide[") != std::string::npos);
    impls.push_back(impl);
  }
  REQUIRE(impls.size() >= 5);
  check_all_run(impls, target);
}

TEST_CASE("a padded image's interior copied as rows of its pixels (flatten of strided runs) through both backends",
          "[codegen][flatten]") {
  // Random padded convs (padding 1-3, stride 1-2, 1-5 channels, odd sizes): pad_image, then the copy of the image
  // into the padded buffer's interior (strided, its runs rows of pixels: strided:2) flattened whole or in tiles
  // of a few rows, each then one flat run per row; the rest completed by the DP.
  RandomSchedules r(20261128);
  INFO("seed " << r.seed << " (set KRIEK_SEED to replay)");
  const Target& target = r.target;
  auto dp = [&](const Spec& s) { return r.best(s); };
  std::vector<ImplPtr> impls;
  for (int i = 0; i < 6; ++i) {
    const std::int64_t f = 2 * r.pick(1, 2) + 1, pad = r.pick(1, f - 1), stride = r.pick(1, 2);
    const std::int64_t h = r.pick(f, 11), w = r.pick(f, 11), channels = r.pick(1, 5), filters = r.pick(1, 9);
    const std::string text = conv_text(h, w, channels, f, filters, stride, pad);
    INFO("spec " << text);
    const Spec spec = parse_spec(text, target);
    Schedule s = schedule(spec, target).apply(PadImage{i % 2 == 0 ? Level::L2 : Level::GL, Layout::row_major()});
    const std::vector<OpenHole> holes = s.holes();
    REQUIRE(holes.size() >= 3);
    const OpenHole& copy = holes[holes.size() - 2];  // the interior's copy, before the conv
    REQUIRE(std::holds_alternative<Move>(copy.spec.op));
    CHECK(copy.spec.output().run_dims == 2);
    s = s.focus(copy.name);
    if (i % 3 == 2) s = s.tile_out({1, r.pick(1, h - 1), w, channels});
    s = s.apply(Flatten{});
    const ImplPtr impl = s.complete(dp).impl();
    const std::string printed = print_impl(impl);
    CHECK(printed.find("flatten") != std::string::npos);
    impls.push_back(impl);
  }
  check_all_run(impls, target);
}

TEST_CASE("emitted C of a small schedule (golden)", "[codegen][golden]") {
  const Target target = named_target("avx512");
  const Spec spec = parse_spec("matmul 4x2x32 f32", target);
  const Schedule s = schedule(spec, target)
                         .tile_out({2, 32})
                         .move_output(Level::VRF)
                         .to_accum()
                         .split(1)
                         .move_input(1, Level::VRF)
                         .select(KernelKind::bcast_fma)
                         .complete();
  const CSource c = emit_c(s.impl(), target, "kriek_golden");
  kriek::testing::check_golden("codegen", "matmul_4x2x32", c.code);
  check_runs(s.impl(), target);
}

TEST_CASE("a partial Impl is a user error naming its hole", "[codegen][errors]") {
  const Target target = named_target("avx512");
  const Schedule s = schedule(parse_spec("matmul 4x4x4 f32", target), target).tile_out({2, 2});
  CHECK_THROWS_AS(emit_c(s.impl(), target), UserError);
  CHECK_THROWS_WITH(emit_c(s.impl(), target), Contains("hole h1") && Contains("matmul (2x4 GL unaligned, 4x2 GL strided"));
}

TEST_CASE("compiler and loader failures report the message and keep the source", "[codegen][errors]") {
  const Target target = named_target("avx512");
  TempDir dir;
  CSource broken{"void kriek_broken(float *out) { out[0] = undeclared; }\n", "kriek_broken", 0, false, {}};
  try {
    compile_and_load(broken, target, dir.path);
    FAIL("a broken source compiled");
  } catch (const CompileError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Contains("compiling kriek_broken failed"));
    CHECK_THAT(what, Contains("undeclared"));
    CHECK_THAT(what, Contains("the source is kept at " + (dir.path / "kriek_broken.c").string()));
    CHECK(std::filesystem::exists(dir.path / "kriek_broken.c"));
  }
  CompileOptions missing;
  missing.compiler = "/nonexistent/cc";
  CHECK_THROWS_WITH(compile_and_load(CSource{"void f(float *o) { o[0] = 1; }\n", "f", 0, false, {}}, target, dir.path, missing),
                    Contains("cannot run '/nonexistent/cc'"));
  CSource fine{"void kriek_fine(float *out) { out[0] = 1.0f; }\n", "kriek_fine", 0, false, {}};
  const auto library = compile_library({fine}, target, dir.path, "lib");
  CHECK_THROWS_WITH(LoadedKernel::load(library, "kriek_missing"), Contains("no function kriek_missing"));
  CHECK_THROWS_WITH(LoadedKernel::load(dir.path / "absent.so", "f"), Contains("cannot load"));
  const LoadedKernel k = LoadedKernel::load(library, "kriek_fine");
  float x = 0;
  k.call({&x});
  CHECK(x == 1.0f);
  CHECK_FALSE(k.set_threads(2));
}

TEST_CASE("timing reports a median and GFLOP/s, the peak probe measures something", "[codegen]") {
  const Target target = named_target("host");
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  const Spec spec = parse_spec("matmul 8x8x16 f32", target);
  TempDir dir;
  const CSource c = emit_c(*synth.best(spec, capacities(target)), target);
  const LoadedKernel k = compile_and_load(c, target, dir.path);
  const Timing t = time_kernel(k, spec, 0.05);
  CHECK(t.samples >= 5);
  CHECK(t.median_seconds > 0);
  CHECK(t.gflops == Approx(flop_count(spec) / t.median_seconds * 1e-9));
  CHECK(measured_peak_gflops(target, dir.path) > 0);
}
