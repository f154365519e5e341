// The codegen tests' shared checks (see run_checks.h).
#include "codegen/run_checks.h"

#include <catch2/catch.hpp>

#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/kernel_runtime.h"
#include "codegen/measure.h"
#include "impl/printer.h"
#include "spec/text.h"
#include "support/random_spec.h"

namespace kriek::test {

using namespace kriek::codegen;

void check_runs(const ImplPtr& impl, const Target& target, int threads) {
  TempDir dir;
  const CSource c = emit_c(impl, target);
  CompileOptions options;
  options.warnings_as_errors = true;
  if (!host_runs(target)) {  // compiled, not run: this machine lacks the ISA
    compile_library({c}, target, dir.path, c.function, options);
    jit_compile(impl, target);
    return;
  }
  const LoadedKernel k = compile_and_load(c, target, dir.path, options);
  const JitKernel j = jit_compile(impl, target);
  CHECK(j.parallel == c.uses_openmp);
  CHECK(j.workspace_bytes == c.workspace_bytes);
  for (const LoadedKernel* kernel : {&k, &j.kernel}) {
    INFO((kernel == &k ? "C backend" : "LLVM backend"));
    if (threads > 0) CHECK(kernel->set_threads(threads) == c.uses_openmp);
    if (threads > 0 && c.uses_openmp) CHECK(kernel->max_threads() == threads);
    for (std::uint64_t seed : {1, 2}) {
      const Verification v = verify(*kernel, impl->spec, seed);
      INFO("spec " << spec_text(impl->spec) << "\n" << c.code);
      INFO("max error " << v.max_error << " at " << v.worst << ", tolerance " << v.tolerance);
      CHECK(v.ok());
    }
  }
}

void check_all_run(const std::vector<ImplPtr>& impls, const Target& target) {
  TempDir dir;
  std::vector<CSource> sources;
  for (std::size_t i = 0; i < impls.size(); ++i) sources.push_back(emit_c(impls[i], target, "k" + std::to_string(i)));
  CompileOptions options;
  options.warnings_as_errors = true;
  const auto library = compile_library(sources, target, dir.path, "all", options);
  if (!host_runs(target)) return;  // compiled, not run: this machine lacks the ISA
  for (std::size_t i = 0; i < impls.size(); ++i) {
    std::vector<LoadedKernel> kernels;
    kernels.push_back(LoadedKernel::load(library, sources[i].function));
    kernels.push_back(jit_compile(impls[i], target).kernel);
    for (const LoadedKernel& k : kernels) {
      const Verification v = verify(k, impls[i]->spec, 3);
      INFO("spec " << spec_text(impls[i]->spec) << "\n" << sources[i].code);
      INFO("max error " << v.max_error << " at " << v.worst << ", tolerance " << v.tolerance);
      CHECK(v.ok());
    }
  }
}

RandomSchedules::RandomSchedules(std::uint64_t fallback)
    : seed(kriek::testing::test_seed(fallback)),
      rng(seed),
      target(named_target(host_runs(named_target("avx512")) ? "avx512" : "avx2")),
      synth(target, CostModel::for_target(target), SynthOptions{2}) {}

std::string conv_text(std::int64_t h, std::int64_t w, std::int64_t channels, std::int64_t window,
                      std::int64_t filters, std::int64_t stride, std::int64_t pad) {
  const auto s = [](std::int64_t v) { return std::to_string(v); };
  return "conv[stride=" + s(stride) + ",pad=" + s(pad) + "] 1x" + s(h) + "x" + s(w) + "x" + s(channels) + " " +
         s(window) + "x" + s(window) + "x" + s(channels) + "x" + s(filters) + " f32";
}

ImplPtr RandomSchedules::best(const Spec& spec) { return *synth.best(spec, capacities(target)); }

std::int64_t RandomSchedules::pick(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

void for_each_pick(std::initializer_list<const char*> targets, std::initializer_list<const char*> texts,
                   const std::function<void(const Target&, const ImplPtr&)>& check) {
  for (const char* name : targets) {
    const Target target = named_target(name);
    Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
    for (const char* text : texts) {
      const ImplPtr impl = *synth.best(parse_spec(text, target), capacities(target));
      INFO(name << ": " << text << "\n" << print_impl(impl));
      check(target, impl);
    }
  }
}

}  // namespace kriek::test
