// Property test of code generation: random Specs of every op kind (boundary tiles, conv, pipelines included) are
// synthesized; every entry of each frontier is JIT-compiled through LLVM (the default backend) and run on random
// inputs, and a deterministic sample of them (every kCEvery-th kernel, and each kernel that exercises a kernel kind
// or code path the sample has not reached yet) is emitted as C, compiled with -Wall -Wextra -Werror and run too;
// each must equal the reference. The seed is printed; KRIEK_SEED replays a failure.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <iostream>
#include <map>
#include <sstream>

#include "codegen/c_view.h"
#include "codegen/compile.h"
#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/measure.h"
#include "spec/text.h"
#include "impl/tiling.h"
#include "support/random_spec.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;

namespace {

/// Every kCEvery-th kernel goes through the C backend too (besides those that reach something new for it): the
/// system compiler takes most of this test's time, and C is no longer the default backend.
constexpr int kCEvery = 4;

struct Case {
  Spec spec;
  std::size_t entry;
  ImplPtr impl;
  CSource source;
};

/// JIT-compiles `c` through the LLVM backend and checks it against the reference; returns the JIT time.
double check_llvm(const Case& c, const Target& target, int& verified) {
  INFO("spec " << spec_text(c.spec) << ", frontier entry " << c.entry << " through LLVM");
  const JitKernel k = jit_compile(c.impl, target, c.source.function);
  const Verification v = verify(k.kernel, c.spec, 7);
  INFO("max error " << v.max_error << " at element " << v.worst << ", tolerance " << v.tolerance);
  INFO((v.ok() ? std::string() : emit_llvm_ir(c.impl, target, c.source.function)));
  CHECK(v.ok());
  verified += v.ok();
  return k.jit_seconds;
}

/// Compiles `cases` as one library (warnings are errors) and checks each kernel against the reference; returns
/// how many agree with it.
int check_batch(const std::vector<Case>& cases, const Target& target, const std::filesystem::path& dir,
                 const std::string& name) {
  std::vector<CSource> sources;
  for (const Case& c : cases) sources.push_back(c.source);
  CompileOptions options;
  options.warnings_as_errors = true;
  const auto library = compile_library(sources, target, dir, name, options);
  int verified = 0;
  for (const Case& c : cases) {
    INFO("spec " << spec_text(c.spec) << ", frontier entry " << c.entry << ", source in " << dir.string() << "/"
                 << name << ".c");
    const LoadedKernel kernel = LoadedKernel::load(library, c.source.function);
    const Verification v = verify(kernel, c.spec, 7);
    INFO("max error " << v.max_error << " at element " << v.worst << ", tolerance " << v.tolerance);
    CHECK(v.ok());
    verified += v.ok();
  }
  return verified;
}

/// Counts what an Impl exercises: kernels by name, and "slide window", "padded slide window", "pipeline",
/// "buffer" (a move into a memory buffer of its own), "boundary" (a loop with a boundary body), "pad", "taps",
/// "as_matmul", "flatten", "partial register" (a kernel on the partial last register of a row in register
/// panels), "vec_sum_runs partial" (fewer rows than lanes).
void count_features(const ImplNode& n, std::map<std::string, int>& seen) {
  if (const auto* k = std::get_if<KernelCall>(&n.kind)) {
    ++seen[std::string(kernel_name(k->kernel))];
    for (const TensorSpec& t : n.spec.operands) {
      if (in_register_panels(t) && t.elements() < t.vector_size) ++seen["partial register"];
    }
    if (k->kernel == KernelKind::vec_sum_rows && in_register_panels(n.spec.output())) ++seen["vec_sum_rows panels"];
    if (k->kernel == KernelKind::vec_sum_runs && n.spec.output().elements() < n.spec.output().vector_size) {
      ++seen["vec_sum_runs partial"];
    }
  }
  if (const auto* l = std::get_if<Loop>(&n.kind)) {
    if (l->window) ++seen[l->window->border.empty() ? "slide window" : "padded slide window"];
    if (l->body_masks.size() > 1) ++seen["boundary"];
  }
  if (std::holds_alternative<Pipeline>(n.kind)) ++seen["pipeline"];
  if (std::holds_alternative<PadOp>(n.kind)) ++seen["pad"];
  if (std::holds_alternative<TapSplit>(n.kind)) ++seen["taps"];
  if (std::holds_alternative<Reshape>(n.kind)) ++seen[reshape_flattens(n.spec) ? "flatten" : "as_matmul"];
  if (const auto* m = std::get_if<MoveOp>(&n.kind); m && !m->alias && storage_of(m->dest.level) == Storage::memory) {
    ++seen["buffer"];
  }
  for (const auto& c : n.children) count_features(*c, seen);
}

}  // namespace

TEST_CASE("every frontier entry of random Specs compiles cleanly and computes the reference", "[codegen][property]") {
  const std::uint64_t seed = kriek::testing::test_seed(20261123);
  std::cout << "codegen property seed " << seed << " (set KRIEK_SEED to replay)\n";
  std::mt19937_64 rng(seed);
  // The widest ISA this machine runs: every kernel is compiled and run (the schedule tests compile AVX-512 code
  // on machines without it).
  const Target target = named_target(host_runs(named_target("avx512")) ? "avx512" : "avx2");
  std::cout << "codegen property target " << target.name << "\n";
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  const std::filesystem::path dir = make_temp_dir();
  int specs = 0, kernels = 0, c_kernels = 0, verified = 0, llvm_verified = 0;
  double c_seconds = 0;  // compiling each round's C sample as one C file, loading and verifying them
  std::vector<double> jit_seconds;
  std::map<std::string, int> seen, c_seen;  // features over every kernel, and over the C sample
  std::vector<Case> batch;
  for (int round = 0; round < 13; ++round) {
    for (int kind = 0; kind < kriek::testing::kOpKinds; ++kind) {
      // Extents up to 20 reach whole vectors (16 lanes) and their boundary tiles.
      Spec spec = kriek::testing::random_spec(rng, kind, kind == 1 || kind == 7 ? 12 : 20);
      if (kind == 0 && round % 2 == 0) {
        // Whole vectors in N reach the register-tiled micro-kernel (bcast_fma).
        const std::int64_t n = 16 * std::uniform_int_distribution<std::int64_t>(1, 2)(rng);
        spec = parse_spec("matmul " + shape_text(Shape{spec.input(0).shape[0], spec.input(0).shape[1], n}) + " f32",
                          target);
      } else if (kind == 0 && round % 4 == 1) {
        // A matrix-vector product whose K is whole vectors reaches the dot-product kernel (dot_fma).
        const std::int64_t k = 16 * std::uniform_int_distribution<std::int64_t>(1, 2)(rng);
        spec = parse_spec("matmul " + shape_text(Shape{spec.input(0).shape[0], k, 1}) + " f32", target);
      } else if (kind == 0 && round == 3) {
        // A K of 100 makes copies into buffers of their own pay (B in L2 and L1 rows): the frontier holds them
        // whatever the seed (random Specs of extents up to 20 reach them under some seeds only, none under 63).
        spec = parse_spec("matmul 16x100x67 f32", target);
      } else if (kind == 1 && round == 5) {
        // A padded conv whose output fits L1: its frontier both pads its image (pad_image) and skips the padding's
        // products (split_taps), whatever the seed (random convs reach pad_image under most seeds, not 93).
        spec = parse_spec("conv[pad=1] 1x9x9x16 3x3x16x32 f32", target);
      } else if (kind == 6 && round % 2 == 1) {
        // Whole vectors along both axes reach the vectorized reductions (vec_sum_rows over the outer axis,
        // vec_sum_runs over the innermost), and rows or columns a few lanes short their partial registers.
        std::uniform_int_distribution<std::int64_t> vectors(1, 2), short_by(0, 5);
        const std::int64_t rows = 16 * vectors(rng) - short_by(rng), cols = 16 * vectors(rng) - short_by(rng);
        spec = parse_spec("reducesum[axis=" + std::to_string(round / 2 % 2) + "] " + shape_text(Shape{rows, cols}) +
                              " f32",
                          target);
      }
      const Frontier& f = synth.solve(spec);
      REQUIRE_FALSE(f.empty());
      ++specs;
      for (std::size_t e = 0; e < f.entries.size(); ++e) {
        const std::string name = "k" + std::to_string(kernels);
        const ImplPtr impl = synth.reconstruct(spec, e);
        std::map<std::string, int> mine;
        count_features(*impl, mine);
        bool sampled = kernels++ % kCEvery == 0;
        for (const auto& [feature, n] : mine) {
          seen[feature] += n;
          sampled |= c_seen[feature] == 0;
        }
        const Case c{spec, e, impl, emit_c(impl, target, name)};
        jit_seconds.push_back(check_llvm(c, target, llvm_verified));
        if (!sampled) continue;
        for (const auto& [feature, n] : mine) c_seen[feature] += n;
        batch.push_back(c);
      }
    }
    const auto start = std::chrono::steady_clock::now();
    if (!batch.empty()) verified += check_batch(batch, target, dir, "round" + std::to_string(round));
    c_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    c_kernels += static_cast<int>(batch.size());
    batch.clear();
  }
  std::cout << "codegen property: " << specs << " Specs, " << llvm_verified << " of " << kernels
            << " kernels verified through LLVM, " << verified << " of the " << c_kernels << " sampled through C\n";
  std::sort(jit_seconds.begin(), jit_seconds.end());
  std::cout << "  C: " << c_seconds << " s for 13 libraries of the sample; LLVM JIT per kernel: median "
            << jit_seconds[jit_seconds.size() / 2] * 1e3 << " ms, total "
            << std::accumulate(jit_seconds.begin(), jit_seconds.end(), 0.0) << " s\n";
  for (const auto& [feature, n] : seen) std::cout << "  " << feature << ": " << n << " (C: " << c_seen[feature] << ")\n";
  CHECK(llvm_verified == kernels);  // every kernel was loaded, run and compared: none skipped
  CHECK(verified == c_kernels);
  CHECK(c_kernels >= kernels / kCEvery);
  // The suite must reach every kernel and the interesting code paths through both backends, or it proves little.
  std::vector<std::string> features = {"boundary", "pipeline", "buffer", "slide window", "padded slide window",
                                       "pad",              "taps",               "partial register",
                                       "vec_sum_rows panels",
                                       "vec_sum_runs partial", "flatten"};
  for (KernelKind k : kAllKernels) features.emplace_back(kernel_name(k));
  for (const std::string& feature : features) {
    INFO("feature " << feature);
    CHECK(seen[feature] > 0);
    CHECK(c_seen[feature] > 0);
  }
  std::filesystem::remove_all(dir);
}
