// Verification and timing of compiled kernels, and the peak probe (see measure.h).
#include "codegen/measure.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/vector_isa.h"

namespace kriek::codegen {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// Independent FMA chains of the peak probe: enough to cover FMA latency times issue width (4 x 2), and few
/// enough that they, the multiplier and the addend stay in registers (AVX2 and SSE have 16).
int probe_chains(const Target& target) { return target.isa == Isa::avx512 ? 16 : 12; }

/// C source of the peak probe: independent FMA chains of the target's widest vectors.
CSource peak_probe(const Target& target) {
  const VectorIsa* isa = vector_isa(target);
  const int chains = probe_chains(target);
  std::ostringstream c;
  if (isa) c << "#include <immintrin.h>\n";
  c << "void kriek_peak_probe(const float *restrict n_in, float *restrict out) {\n"
    << "  const long n = (long)n_in[0];\n";
  if (isa) {
    c << "  const " << isa->type << " b = " << isa->broadcast << "(0.999999f), d = " << isa->broadcast << "(1e-7f);\n";
    for (int i = 0; i < chains; ++i) c << "  " << isa->type << " a" << i << " = " << isa->broadcast << "(" << i << ".0f);\n";
    c << "  for (long i = 0; i < n; ++i) {\n";
    for (int i = 0; i < chains; ++i) c << "    a" << i << " = " << isa->fmadd << "(a" << i << ", b, d);\n";
    c << "    __asm__ volatile(\"\" ::: \"memory\");\n  }\n";
    c << "  " << isa->type << " s = a0;\n";
    for (int i = 1; i < chains; ++i) c << "  s = " << isa->add << "(s, a" << i << ");\n";
    c << "  float lanes[" << isa->width << "];\n  " << isa->store << "(lanes, s);\n  out[0] = lanes[0];\n";
  } else {
    c << "  float b = 0.999999f, d = 1e-7f;\n";
    for (int i = 0; i < chains; ++i) c << "  float a" << i << " = " << i << ".0f;\n";
    c << "  for (long i = 0; i < n; ++i) {\n";
    for (int i = 0; i < chains; ++i) c << "    a" << i << " = a" << i << " * b + d;\n";
    c << "    __asm__ volatile(\"\" ::: \"memory\");\n  }\n  out[0] = a0";
    for (int i = 1; i < chains; ++i) c << " + a" << i;
    c << ";\n";
  }
  c << "}\n";
  return CSource{c.str(), "kriek_peak_probe", 0, false, {}};
}

/// Copies of operands in buffers aligned the way a tensor library aligns them: each starts on a cache line, at
/// its own offset within a page (1,088 bytes apart), so that neither line splits nor 4K aliasing between the
/// operands depends on where malloc put them (its heap blocks are 16-byte aligned: a zmm access may split a line).
class AlignedOperands {
 public:
  explicit AlignedOperands(const Operands& ops) {
    for (std::size_t i = 0; i < ops.buffers.size(); ++i) {
      const std::size_t offset = i * 1088 % kPage;
      const std::size_t bytes = ops.buffers[i].size() * sizeof(float);
      void* block = std::aligned_alloc(kPage, (offset + bytes + kPage - 1) / kPage * kPage);
      KRIEK_ASSERT(block != nullptr, "no memory for an operand of ", bytes, " bytes");
      blocks_.emplace_back(block);
      float* at = reinterpret_cast<float*>(static_cast<char*>(block) + offset);
      std::copy(ops.buffers[i].begin(), ops.buffers[i].end(), at);
      pointers_.push_back(at);
    }
  }
  const std::vector<float*>& pointers() const { return pointers_; }

 private:
  static constexpr std::size_t kPage = 4096;
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<void, Free>> blocks_;
  std::vector<float*> pointers_;
};

}  // namespace

Verification verify(const LoadedKernel& kernel, const Spec& spec, std::uint64_t seed) {
  return check_against_reference(spec, seed, [&](const std::vector<float*>& ops) { kernel.call(ops); });
}

namespace {

/// time_kernel on operands the caller placed.
Timing time_on(const LoadedKernel& kernel, const Spec& spec, double budget_seconds, const std::vector<float*>& p) {
  auto start = Clock::now();
  kernel.call(p);  // warm-up: page faults, the workspace, the OpenMP team
  start = Clock::now();
  kernel.call(p);
  const double once = std::max(seconds_since(start), 1e-9);
  Timing t;
  t.calls_per_sample = std::max<std::int64_t>(1, static_cast<std::int64_t>(1e-3 / once));
  const double sample_seconds = once * static_cast<double>(t.calls_per_sample);
  t.samples = static_cast<int>(std::clamp(budget_seconds / sample_seconds, 5.0, 101.0));
  std::vector<double> per_call;
  for (int s = 0; s < t.samples; ++s) {
    start = Clock::now();
    for (std::int64_t c = 0; c < t.calls_per_sample; ++c) kernel.call(p);
    per_call.push_back(seconds_since(start) / static_cast<double>(t.calls_per_sample));
  }
  std::nth_element(per_call.begin(), per_call.begin() + static_cast<std::ptrdiff_t>(per_call.size() / 2), per_call.end());
  t.median_seconds = per_call[per_call.size() / 2];
  t.best_seconds = *std::min_element(per_call.begin(), per_call.end());
  t.gflops = flop_count(spec) / t.median_seconds * 1e-9;
  return t;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

Timing time_kernel(const LoadedKernel& kernel, const Spec& spec, double budget_seconds) {
  const AlignedOperands ops(random_operands(spec, 1));
  return time_on(kernel, spec, budget_seconds, ops.pointers());
}

AlternatingRounds time_rounds(std::span<const LoadedKernel> kernels, const Spec& spec, int rounds,
                              double budget_seconds) {
  AlternatingRounds result;
  result.seconds.resize(kernels.size());
  for (int r = 0; r < rounds; ++r) {
    // One placement of the operands per round, which every kernel of the round runs on: their physical pages, and
    // so the L2's set conflicts (it is physically indexed), move the time of kernels whose rows lie a power of two
    // apart (matmul 64x4096x64, A's rows 16 KiB apart: one Impl timed at 189 us in one process and 266 in another).
    // (The allocator mostly returns the blocks the last round freed, so a process keeps one placement; placing each
    // round's operands some pages further on sampled others, and the fidelity benchmark's two passes then agreed
    // less: retest 0.63, the pick within 5% on 17 of 28 Specs.)
    const AlignedOperands ops(random_operands(spec, 1));
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      result.seconds[i].push_back(time_on(kernels[i], spec, budget_seconds, ops.pointers()).best_seconds);
    }
  }
  return result;
}

double AlternatingRounds::median(std::size_t i) const { return median_of(seconds.at(i)); }

std::vector<double> AlternatingRounds::medians() const {
  std::vector<double> out;
  for (std::size_t i = 0; i < seconds.size(); ++i) out.push_back(median(i));
  return out;
}

double AlternatingRounds::median_ratio(std::size_t i, std::size_t j) const {
  const std::vector<double>& a = seconds.at(i);
  const std::vector<double>& b = seconds.at(j);
  KRIEK_ASSERT(a.size() == b.size(), "kernels timed in different rounds");
  std::vector<double> ratios;
  for (std::size_t r = 0; r < a.size(); ++r) ratios.push_back(a[r] / b[r]);
  return median_of(std::move(ratios));
}

LoadedKernel build_kernel(const ImplPtr& impl, const Target& target, const std::filesystem::path& dir,
                          const std::string& function, Backend backend) {
  return backend == Backend::llvm ? jit_compile(impl, target, function).kernel
                                  : compile_and_load(emit_c(impl, target, function), target, dir);
}

ImplMeasurement measure_impl(const ImplPtr& impl, const Target& target, const std::filesystem::path& dir,
                             const std::string& function, std::uint64_t seed, double budget_seconds,
                             Backend backend) {
  const LoadedKernel kernel = build_kernel(impl, target, dir, function, backend);
  ImplMeasurement m;
  m.verification = verify(kernel, impl->spec, seed);
  if (m.verification.ok()) m.timing = time_kernel(kernel, impl->spec, budget_seconds);
  return m;
}

std::string code_shape(const CSource& c) {
  std::string out;
  std::map<std::string, int> names;
  const std::string& code = c.code;
  std::size_t i = 0;
  while (i < code.size()) {
    if (code.compare(i, 2, "//") == 0) {
      i = code.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    const char ch = code[i];
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      std::size_t end = i;
      while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
      std::string name = code.substr(i, end - i);
      std::size_t next = code.find_first_not_of(" \t", end);
      const bool called = next != std::string::npos && code[next] == '(';
      // The entry point's name, and helpers named after it, are the same in every kernel of one shape.
      for (std::size_t at = name.find(c.function); !c.function.empty() && at != std::string::npos; at = name.find(c.function)) {
        name.replace(at, c.function.size(), "ENTRY");
      }
      if (!called) name = "n" + std::to_string(names.emplace(name, static_cast<int>(names.size())).first->second);
      out += name;
      i = end;
      continue;
    }
    out += ch;
    ++i;
  }
  return out;
}

std::string code_shape(const ImplPtr& impl, const Target& target) { return code_shape(emit_c(impl, target)); }

double measured_peak_gflops(const Target& target, const std::filesystem::path& dir, Backend backend) {
  static std::mutex mutex;
  static std::map<std::pair<std::uint64_t, Backend>, double> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::pair{target.fingerprint(), backend};
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  LoadedKernel k;
  switch (backend) {
    case Backend::llvm: k = jit_peak_probe(target, probe_chains(target)); break;
    case Backend::c: k = compile_and_load(peak_probe(target), target, dir); break;
  }
  const VectorIsa* isa = vector_isa(target);
  const double flops_per_iteration = probe_chains(target) * 2.0 * (isa ? isa->width : 1);
  float n = 1 << 16, out = 0;
  double best = 0;
  for (int rep = 0; rep < 7; ++rep) {
    const auto start = Clock::now();
    k.call({&n, &out});
    const double s = seconds_since(start);
    best = std::max(best, flops_per_iteration * n / s * 1e-9);
    if (s < 0.02) n *= 2;  // grow until a run lasts long enough to time
  }
  cache[key] = best;
  return best;
}

}  // namespace kriek::codegen
