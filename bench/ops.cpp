// The op benchmark beside the matmul and conv suites: reductions and elementwise ops against the bandwidth of the
// level their data comes from, and fused epilogues against the matmul alone. For each Spec the DP's pick (default
// memory limits, as `kriek run` picks) is JIT-compiled by the LLVM backend, verified against the reference, and
// timed; timings alternate between the Specs compared (fused, plain, fused, ...) and the median of the rounds is
// reported.
//
//   build/bench/bench_ops [--suites reductions,elementwise,epilogues] [--rounds N] [--table DIR]
//                         [--csv FILE]
//
// Bandwidth: a kernel's bytes are its operands' (inputs read, output written, a broadcast input counted at its own
// size), over the median time per call. Between back-to-back calls the operands stay in the smallest level that
// holds all of them (L1, L2, L3, else DRAM). The reference is the time the level's streams take for those bytes:
// the output's bytes and as many input bytes at the level's copy bandwidth (std::memcpy between two buffers of
// half the kernel's footprint each: a store to a cached line reads it for ownership and writes it back, so a copy
// within L2 moves about half the bytes per second that reads alone do), the other input bytes at its read
// bandwidth (a buffer of the footprint read by the widest loads, as kriek calibrate's probe), both timed between
// the kernel's rounds. "of BW" is the reference time over the kernel's; a reduction's output is small, so its
// reference is the read bandwidth.
// Epilogues: the time of compose[matmul, add, relu] (bias row and activation) over the time of the matmul alone, and
// of compose[conv, add, relu] (bias per output channel) and compose[conv, add, add, relu] (bias and a residual
// block's shortcut) over the conv alone; Figure 2's pipeline
// compose[conv, reducesum, conv] timed whole.
//
// Build it with `cmake --build build --target bench_ops`. Never part of the tests.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/guarded_main.h"
#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "codegen/emit_llvm.h"
#include "codegen/measure.h"
#include "spec/error.h"
#include "spec/target.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

using namespace kriek;
using namespace kriek::codegen;

namespace {

using bench::median;
using bench::split;

/// Sizes from L1-resident to beyond L2, powers of two and odd, both reduction axes; the L2-sized ones also with
/// operands the Spec places in L2 (as a pipeline's or a tile's are), which the kernels may read differently.
const std::vector<std::string> kReductions = {
    "reducesum[axis=1] 64x64 f32",       "reducesum[axis=0] 64x64 f32",     "reducesum[axis=1] 67x45 f32",
    "reducesum[axis=0] 67x45 f32",       "reducesum[axis=1] 256x256 f32",   "reducesum[axis=0] 256x256 f32",
    "reducesum[axis=1] 250x333 f32",     "reducesum[axis=0] 250x333 f32",   "reducesum[axis=1] 256x256 f32 L2",
    "reducesum[axis=0] 256x256 f32 L2",  "reducesum[axis=1] 250x333 f32 L2", "reducesum[axis=0] 250x333 f32 L2",
    "reducesum[axis=1] 1024x1024 f32",   "reducesum[axis=0] 1024x1024 f32", "reducesum[axis=1] 1000x999 f32"};
const std::vector<std::string> kElementwise = {
    "relu 64x64 f32",        "relu 256x256 f32",        "relu 99x37 f32",         "relu 1024x1024 f32",
    "add 256x256 f32",       "add 256x256 1x256 f32",   "add 1000x999 1x999 f32", "mul 128x512 f32",
    "max 333x250 f32",       "compose[add, relu] 256x256 256x256 f32"};
/// Matmul shapes M, K, N: each timed alone and with a bias row and relu fused after it.
const std::vector<std::string> kEpilogueShapes = {"64x64x64", "128x128x128", "256x256x256", "82x99x63",
                                                  "99x36x67", "32x52x93"};
/// Conv layers (op, image, filters; NHWC): each timed alone and with a bias per output channel and relu fused
/// after it: 3x3 with padding, stride 2, pointwise, and channels not a multiple of the vector width.
const std::vector<std::array<std::string, 3>> kConvEpilogues = {{"conv[pad=1]", "1x14x14x64", "3x3x64x64"},
                                                                {"conv[stride=2,pad=1]", "1x28x28x32", "3x3x32x64"},
                                                                {"conv", "1x28x28x128", "1x1x128x64"},
                                                                {"conv[pad=1]", "1x12x12x24", "3x3x24x40"}};
/// Conv layers of a residual block's second conv (op, image, filters; the output the image's shape): timed alone
/// and with a bias, the block's input (the shortcut) added and relu, fused: compose[conv, add, add, relu].
const std::vector<std::array<std::string, 3>> kResidualEpilogues = {{"conv[pad=1]", "1x14x14x64", "3x3x64x64"},
                                                                    {"conv[pad=1]", "1x7x7x128", "3x3x128x128"}};
/// Pipelines timed whole (GFLOP/s only): the Kriek report's Figure 2.
const std::vector<std::string> kPipelines = {"compose[conv, reducesum[axis=2], conv] 10x10 5x5x6 5x5x6 f32",
                                             "compose[conv, reducesum[axis=2], conv] 36x36 5x5x16 5x5x16 f32"};

struct Measured {
  double seconds = 0;  ///< median per call
  double gflops = 0;
};

/// The bytes a kernel's operands take (its traffic when each is read or written once).
double operand_bytes(const Spec& spec) {
  double bytes = 0;
  for (const TensorSpec& t : spec.operands) bytes += static_cast<double>(t.bytes());
  return bytes;
}

/// Seconds per call of `call`, over calls repeated for about 0.15 s.
template <typename F>
double seconds_per_call(F&& call) {
  std::int64_t calls = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  while (elapsed < 0.15) {
    for (int i = 0; i < 64; ++i) call();
    calls += 64;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return elapsed / static_cast<double>(calls);
}

/// Streams that stand for a level's bandwidth, timed in the same rounds as the kernel they are compared with (this
/// VM's cores run the same loop at two speeds, 61 or 92 ns for 16 KiB from L1, for seconds at a time: a probe
/// measured at another moment, as the profile's, is no reference), each over a kernel's footprint of `bytes`:
/// std::memcpy between two buffers of half of it, and a read of all of it (rounded up to 512 bytes), 8 of the
/// widest loads per step (kriek calibrate's read probe).
class Streams {
 public:
  Streams(std::size_t bytes, Isa isa)
      : isa_(isa),
        steps_((bytes + 511) / 512),
        from_(bytes / 2, 1),
        to_(bytes / 2, 0),
        buffer_(static_cast<char*>(std::aligned_alloc(64, read_bytes())), &std::free) {
    std::memset(buffer_.get(), 1, read_bytes());
  }

  /// The bytes read() reads.
  std::size_t read_bytes() const { return steps_ * 512; }
  /// Seconds per copy of half the footprint.
  double copy() {
    return seconds_per_call([&] {
      std::memcpy(to_.data(), from_.data(), from_.size());
      asm volatile("" : : "r"(to_.data()) : "memory");  // the copy is used
    });
  }
  /// Seconds per read of read_bytes().
  double read() {
    return seconds_per_call([&] { read_lines(buffer_.get(), steps_, isa_); });
  }

 private:
  /// Loads `steps` x 512 bytes from `p` into registers (never used: the loads are all the probe does).
  __attribute__((target("avx512f"))) static void read512(const char* p, std::size_t steps) {
    for (std::size_t s = 0; s < steps; ++s, p += 512) {
      asm volatile(
          "vmovaps 0(%0), %%zmm0\n\tvmovaps 64(%0), %%zmm1\n\tvmovaps 128(%0), %%zmm2\n\t"
          "vmovaps 192(%0), %%zmm3\n\tvmovaps 256(%0), %%zmm4\n\tvmovaps 320(%0), %%zmm5\n\t"
          "vmovaps 384(%0), %%zmm6\n\tvmovaps 448(%0), %%zmm7" ::"r"(p)
          : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
    }
  }
  __attribute__((target("avx2"))) static void read256(const char* p, std::size_t steps) {
    for (std::size_t s = 0; s < 2 * steps; ++s, p += 256) {
      asm volatile(
          "vmovaps 0(%0), %%ymm0\n\tvmovaps 32(%0), %%ymm1\n\tvmovaps 64(%0), %%ymm2\n\t"
          "vmovaps 96(%0), %%ymm3\n\tvmovaps 128(%0), %%ymm4\n\tvmovaps 160(%0), %%ymm5\n\t"
          "vmovaps 192(%0), %%ymm6\n\tvmovaps 224(%0), %%ymm7" ::"r"(p)
          : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
    }
  }
  static void read_lines(const char* p, std::size_t steps, Isa isa) {
    switch (isa) {
      case Isa::avx512: read512(p, steps); return;
      case Isa::avx2: read256(p, steps); return;
      case Isa::scalar: {
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < steps * 512; i += 8) sum += *reinterpret_cast<const std::uint64_t*>(p + i);
        asm volatile("" : : "r"(sum));
        return;
      }
    }
  }

  Isa isa_;
  std::size_t steps_;
  std::vector<char> from_, to_;
  std::unique_ptr<char, decltype(&std::free)> buffer_;
};

/// The smallest level holding `bytes`.
std::string resident_level(double bytes, const Target& target) {
  if (bytes <= static_cast<double>(target.level(Level::L1).capacity)) return "L1";
  if (bytes <= static_cast<double>(target.level(Level::L2).capacity)) return "L2";
  // As kriek calibrate assumes when detection gives no plausible L3 size.
  const double l3 = target.l3_bytes > 0 ? static_cast<double>(target.l3_bytes) : 32.0 * 1024 * 1024;
  if (bytes <= l3) return "L3";
  return "DRAM";
}

class Runner {
 public:
  Runner(Synthesizer& synth, int rounds) : synth_(synth), rounds_(rounds) {}

  /// Compiles and verifies each Spec's pick, then times them in alternation for `rounds` rounds, each round
  /// also running `probes` (seconds per call each) after the kernels; their medians go to `probe_seconds`.
  std::vector<Measured> measure(const std::vector<Spec>& specs,
                                const std::vector<std::function<double()>>& probes = {},
                                std::vector<double>* probe_seconds = nullptr) {
    const Target& target = synth_.target();
    std::vector<JitKernel> kernels;
    for (const Spec& spec : specs) {
      const std::optional<ImplPtr> impl = synth_.best(spec, default_limits(target));
      if (!impl) user_error("no Impl of ", spec_text(spec), " fits the default memory limits");
      kernels.push_back(jit_compile(*impl, target, "k" + std::to_string(count_++)));
      kernels.back().kernel.set_threads(1);
      if (!verify(kernels.back().kernel, spec, 1).ok()) user_error("WRONG result: ", spec_text(spec));
    }
    std::vector<std::vector<double>> seconds(specs.size()), probed(probes.size());
    for (int r = 0; r < rounds_; ++r) {
      for (std::size_t i = 0; i < specs.size(); ++i) {
        seconds[i].push_back(time_kernel(kernels[i].kernel, specs[i], 0.15).median_seconds);
      }
      for (std::size_t i = 0; i < probes.size(); ++i) probed[i].push_back(probes[i]());
    }
    if (probe_seconds) {
      probe_seconds->clear();
      for (const std::vector<double>& p : probed) probe_seconds->push_back(median(p));
    }
    std::vector<Measured> out;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const double s = median(seconds[i]);
      out.push_back(Measured{s, flop_count(specs[i]) / s * 1e-9});
    }
    return out;
  }

 private:
  Synthesizer& synth_;
  int rounds_;
  int count_ = 0;
};

int run(int argc, char** argv) {
  std::string suites = "reductions,elementwise,epilogues", table_path, csv_path;
  int rounds = 5;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) user_error(flag, " needs a value");
    const std::string value = argv[i + 1];
    if (flag == "--suites") suites = value;
    else if (flag == "--table") table_path = value;
    else if (flag == "--csv") csv_path = value;
    else if (flag == "--rounds") rounds = std::max(1, std::atoi(value.c_str()));
    else user_error("unknown flag ", flag);
  }
  std::vector<std::string> chosen = split(suites, ',');
  for (const std::string& s : chosen) {
    if (s != "reductions" && s != "elementwise" && s != "epilogues") user_error("unknown suite ", s);
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const Target& target = host_target();
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{2});
  std::optional<Table> table;
  if (!table_path.empty()) table = open_table_if_exists(table_path, target, synth.model());
  if (table) synth.set_table(&*table);
  Runner runner(synth, rounds);
  std::ostringstream csv;
  // Spec texts hold commas (compose[add, relu]): quoted.
  csv << "suite,spec,level,gflops,gbytes_per_s,read_gbytes_per_s,copy_gbytes_per_s,of_bandwidth,fused_over_plain\n";

  std::cout << "load " << bench::load_average() << "\n";
  for (const std::string& suite : chosen) {
    if (suite == "epilogues") {
      // Pairs of the op alone and the op with its epilogue: (label, plain Spec text, fused Spec text).
      std::vector<std::array<std::string, 3>> pairs;
      for (const std::string& shape : kEpilogueShapes) {
        const std::vector<std::string> mkn = split(shape, 'x');
        pairs.push_back({"matmul " + shape, "matmul " + shape + " f32",
                         "compose[matmul, add, relu] " + mkn[0] + "x" + mkn[1] + " " + mkn[1] + "x" + mkn[2] +
                             " 1x" + mkn[2] + " f32"});
      }
      for (const auto& [op, image, filters] : kConvEpilogues) {
        const std::string channels = split(filters, 'x').back();
        pairs.push_back({op + " " + image + " " + filters, op + " " + image + " " + filters + " f32",
                         "compose[" + op + ", add, relu] " + image + " " + filters + " 1x1x1x" + channels + " f32"});
      }
      for (const auto& [op, image, filters] : kResidualEpilogues) {
        const std::string channels = split(filters, 'x').back();
        pairs.push_back({op + " " + image + " " + filters + " +shortcut", op + " " + image + " " + filters + " f32",
                         "compose[" + op + ", add, add, relu] " + image + " " + filters + " 1x1x1x" + channels + " " +
                             image + " f32"});
      }
      std::printf("\nepilogues: compose[op, add, relu] (bias, relu; +shortcut: compose[op, add, add, relu]) "
                  "against the op alone, 1 thread\n");
      std::printf("%-44s %12s %12s %14s\n", "op", "plain GF/s", "fused GF/s", "fused / plain");
      std::vector<double> ratios;
      for (const auto& [label, plain_text, fused_text] : pairs) {
        const Spec plain = parse_spec(plain_text, target), fused = parse_spec(fused_text, target);
        const std::vector<Measured> m = runner.measure({plain, fused});
        const double ratio = m[1].seconds / m[0].seconds;
        ratios.push_back(ratio);
        std::printf("%-44s %12.1f %12.1f %14.3f\n", label.c_str(), m[0].gflops, m[1].gflops, ratio);
        csv << "epilogues,\"" << spec_text(fused) << "\",," << m[1].gflops << ",,,,," << ratio << "\n";
      }
      std::printf("fused / plain time: median %.3f, highest %.3f\n", median(ratios),
                  *std::max_element(ratios.begin(), ratios.end()));
      std::printf("\npipelines, 1 thread\n%-66s %9s %12s\n", "spec", "GFLOP/s", "us per call");
      for (const std::string& text : kPipelines) {
        const Measured m = runner.measure({parse_spec(text, target)}).front();
        std::printf("%-66s %9.2f %12.2f\n", text.c_str(), m.gflops, m.seconds * 1e6);
        csv << "pipelines,\"" << text << "\",," << m.gflops << ",,,,,\n";
      }
      continue;
    }
    const std::vector<std::string>& texts = suite == "reductions" ? kReductions : kElementwise;
    std::printf("\n%s, 1 thread: the kernel's time against the time its operand bytes take at the level that holds\n"
                "them between calls: the output and as many input bytes at the copy bandwidth (memcpy), the other\n"
                "inputs at the read bandwidth (the widest loads), both timed between the kernel's rounds; GB/s: each\n"
                "operand's bytes once\n",
                suite.c_str());
    std::printf("%-40s %5s %9s %9s %9s %9s %8s\n", "spec", "level", "GFLOP/s", "GB/s", "read GB/s", "copy GB/s",
                "of BW");
    std::vector<double> shares;
    for (const std::string& text : texts) {
      const Spec spec = parse_spec(text, target);
      const double bytes = operand_bytes(spec);
      const auto written = static_cast<double>(spec.output().bytes());
      const std::string level = resident_level(bytes, target);
      // Copied bytes per second (read and written) over the kernel's footprint, and bytes read per second from all
      // of it, both timed between the kernel's rounds.
      Streams streams(static_cast<std::size_t>(bytes), target.isa);
      std::vector<double> probe;
      const Measured m =
          runner.measure({spec}, {[&] { return streams.copy(); }, [&] { return streams.read(); }}, &probe).front();
      const double copy_gbs = bytes / probe[0] * 1e-9;  // half of them read, half written
      const double read_gbs = static_cast<double>(streams.read_bytes()) / probe[1] * 1e-9;
      const double reference = (2 * written / copy_gbs + std::max(0.0, bytes - 2 * written) / read_gbs) * 1e-9;
      const double gbs = bytes / m.seconds * 1e-9;
      const double share = reference / m.seconds;
      shares.push_back(share);
      std::printf("%-40s %5s %9.2f %9.1f %9.1f %9.1f %7.0f%%\n", text.c_str(), level.c_str(), m.gflops, gbs,
                  read_gbs, copy_gbs, 100 * share);
      csv << suite << ",\"" << text << "\"," << level << "," << m.gflops << "," << gbs << "," << read_gbs << ","
          << copy_gbs << "," << share << ",\n";
    }
    std::printf("of bandwidth: median %.0f%%, lowest %.0f%%\n", 100 * median(shares),
                100 * *std::min_element(shares.begin(), shares.end()));
  }
  if (!table_path.empty()) {
    save_table(table_path, target, synth.model(), [&](const FrontierVisitor& v) { synth.for_each_encoded(v); }, true,
               table ? &*table : nullptr);
  }
  if (!csv_path.empty()) {
    std::ofstream out(csv_path);
    out << csv.str();
    if (!out) user_error("cannot write ", csv_path);
  }
  std::printf("(medians of %d rounds)\n", rounds);
  std::cout << "load at the end " << bench::load_average() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return bench::guarded_main("bench_ops", [&] { return run(argc, argv); }); }
