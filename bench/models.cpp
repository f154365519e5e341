// Cost model A/B: the picks of two variants of the cost model, timed side by side in one process. Variant A and
// variant B are the target's model (with --profile, the calibrated one) with some constants overridden by name, and
// the share of L2 the pick may fill (`l2_percent`, impl/memory.h's kDefaultL2Percent unless set); per Spec each
// variant searches (a Synthesizer each, no table) and picks within its limits, and where the picks differ both are
// compiled (LLVM), verified and timed in alternating rounds (codegen::time_rounds), so a drift of the machine
// moves them alike. Prints each Spec's predicted costs (each by its own model), their median rounds and B's time
// over A's (the median over the rounds of B's over A's in the same round), then the ratios' geometric mean
// (--show: both picks' Impls where they differ).
//
//   build/bench/bench_models [--a NAME=V,...] [--b NAME=V,...] [--spec TEXT]... [--rounds N] [--parallel]
//                            [--show] [--profile FILE] [--a-profile FILE] [--b-profile FILE]
//
// NAME is a CostModel constant or l2_percent (--list prints them). A formula change made a constant (at its old
// value, it is the old model) is measured this way before it becomes the default; so is a default limit
// (`--b l2_percent=62`). Specs run serial (one core) unless --parallel. Build it with
// `cmake --build build --target bench_models`; never part of the tests. --a-profile / --b-profile give a variant
// the constants of a target profile of its own (`kriek calibrate`): a calibration against the defaults, or against
// another calibration.
#include <cmath>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>

#include "bench/bench_util.h"
#include "bench/guarded_main.h"
#include "codegen/measure.h"
#include "impl/memory.h"
#include "impl/printer.h"
#include "spec/profile.h"
#include "spec/text.h"
#include "synth/synthesizer.h"

using namespace kriek;

namespace {

const std::vector<std::string> kSuite = {
    "matmul 256x256x256 f32",  "matmul 512x512x512 f32",   "matmul 1000x1000x1000 f32", "matmul 257x257x257 f32",
    "matmul 128x768x768 f32",  "matmul 128x3072x768 f32",  "matmul 384x768x3072 f32",   "matmul 384x3072x768 f32",
    "matmul 200x300x170 f32",  "matmul 300x700x500 f32",   "matmul 82x99x63 f32",       "matmul 4x64x64x64 f32",
    "conv[pad=1] 1x56x56x64 3x3x64x64 f32", "conv 1x28x28x128 1x1x128x512 f32",
    "conv[pad=1] 1x14x14x256 3x3x256x256 f32"};

/// The constants --a and --b may set, by name.
std::map<std::string, std::function<Cost&(CostModel&)>> constants() {
  return {{"line_from.GL", [](CostModel& m) -> Cost& { return m.line_from[0]; }},
          {"line_from.L2", [](CostModel& m) -> Cost& { return m.line_from[1]; }},
          {"line_from.L1", [](CostModel& m) -> Cost& { return m.line_from[2]; }},
          {"strided_percent", [](CostModel& m) -> Cost& { return m.strided_percent; }},
          {"loop_iteration", [](CostModel& m) -> Cost& { return m.loop_iteration; }},
          {"parallel_launch", [](CostModel& m) -> Cost& { return m.parallel_launch; }},
          {"cross_core_line", [](CostModel& m) -> Cost& { return m.cross_core_line; }},
          {"vector_fma", [](CostModel& m) -> Cost& { return m.vector_fma; }},
          {"fma_latency", [](CostModel& m) -> Cost& { return m.fma_latency; }},
          {"vector_load", [](CostModel& m) -> Cost& { return m.vector_load; }},
          {"vector_store", [](CostModel& m) -> Cost& { return m.vector_store; }},
          {"vector_op", [](CostModel& m) -> Cost& { return m.vector_op; }},
          {"buffer_setup", [](CostModel& m) -> Cost& { return m.buffer_setup; }},
          {"output_return_percent", [](CostModel& m) -> Cost& { return m.output_return_percent; }},
          {"stream_overlap_eighths", [](CostModel& m) -> Cost& { return m.stream_overlap_eighths; }},
          {"code_cache_bytes", [](CostModel& m) -> Cost& { return m.code_cache_bytes; }},
          {"streamed_rows_hide_iteration", [](CostModel& m) -> Cost& { return m.streamed_rows_hide_iteration; }}};
}

/// What a variant sets: a cost model (the target's, or the one a profile of its own gives), and the share of L2 its
/// pick may fill.
struct Variant {
  CostModel model;
  std::int64_t l2_percent = kDefaultL2Percent;
};

/// `base` with the overrides of `text` ("NAME=V,NAME=V"); UserError naming a bad one.
Variant overridden(const CostModel& base, const std::string& text) {
  const auto table = constants();
  Variant v{base};
  for (const std::string& item : bench::split(text, ',')) {
    const auto eq = item.find('=');
    const std::string name = eq == std::string::npos ? item : item.substr(0, eq);
    const auto it = table.find(name);
    if (eq == std::string::npos || (it == table.end() && name != "l2_percent")) {
      throw UserError("'" + item + "' is not NAME=VALUE with a CostModel constant or l2_percent (--list)");
    }
    char* end = nullptr;
    const long long value = std::strtoll(item.c_str() + eq + 1, &end, 10);
    if (*end != '\0' || value < 0) throw UserError("'" + item + "': the value is not a whole number >= 0");
    if (name == "l2_percent") {
      if (value < 1 || value > 100) throw UserError("'" + item + "': a share of L2 is 1 to 100 percent");
      v.l2_percent = value;
    } else {
      it->second(v.model) = static_cast<Cost>(value);
    }
  }
  return v;
}

struct Pick {
  Cost cost = 0;
  ImplPtr impl;
};

Pick pick(const Spec& spec, const Target& target, const Variant& v) {
  Synthesizer synth(target, v.model, SynthOptions{});
  const Frontier f = synth.solve(spec);
  MemoryUse limits = default_limits(target);
  limits[Level::L2] = capacities(target)[Level::L2] * v.l2_percent / 100;
  const std::ptrdiff_t best = f.best_within(limits);
  KRIEK_ASSERT(best >= 0, "nothing fits ", v.l2_percent, "% of L2 for ", spec_text(spec));
  return {f.entries[static_cast<std::size_t>(best)].cost, synth.reconstruct(spec, static_cast<std::size_t>(best))};
}

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded_main("bench_models", [&] {
    std::vector<std::string> specs;
    std::string a_text, b_text;
    std::optional<std::string> a_profile, b_profile;
    int rounds = 7;
    bool parallel = false, show = false;
    Target target = host_target();
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--spec") && i + 1 < argc) specs.push_back(argv[++i]);
      else if (!std::strcmp(argv[i], "--a") && i + 1 < argc) a_text = argv[++i];
      else if (!std::strcmp(argv[i], "--b") && i + 1 < argc) b_text = argv[++i];
      else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
      else if (!std::strcmp(argv[i], "--parallel")) parallel = true;
      else if (!std::strcmp(argv[i], "--show")) show = true;
      else if (!std::strcmp(argv[i], "--profile") && i + 1 < argc)
        target = with_profile(target, read_profile(argv[++i]));
      else if (!std::strcmp(argv[i], "--a-profile") && i + 1 < argc) a_profile = argv[++i];
      else if (!std::strcmp(argv[i], "--b-profile") && i + 1 < argc) b_profile = argv[++i];
      else if (!std::strcmp(argv[i], "--list")) {
        for (const auto& [name, field] : constants()) std::cout << name << "\n";
        std::cout << "l2_percent\n";
        return 0;
      } else {
        std::cerr << "usage: bench_models [--a NAME=V,...] [--b NAME=V,...] [--spec TEXT]... [--rounds N] "
                     "[--parallel] [--show] [--profile FILE] [--a-profile FILE] [--b-profile FILE] | --list\n";
        return 1;
      }
    }
    if (specs.empty()) specs = kSuite;
    // A variant's own profile replaces the constants it measures (the picks still compile for `target`).
    auto base = [&](const std::optional<std::string>& profile) {
      return CostModel::for_target(profile ? with_profile(target, read_profile(*profile)) : target);
    };
    const Variant a = overridden(base(a_profile), a_text), b = overridden(base(b_profile), b_text);
    const std::filesystem::path dir = codegen::make_temp_dir();
    auto describe = [](const std::string& text, const std::optional<std::string>& profile) {
      return (text.empty() ? std::string("defaults") : text) + (profile ? " with profile " + *profile : "");
    };
    std::cout << "load: " << bench::load_average() << "; A: " << describe(a_text, a_profile)
              << "; B: " << describe(b_text, b_profile) << "\n";
    double log_sum = 0;
    std::size_t built = 0;
    for (const std::string& text : specs) {
      const Spec spec = parse_spec(parallel ? text : text + " serial", target);
      const Pick pa = pick(spec, target, a), pb = pick(spec, target, b);
      std::cout << std::left << std::setw(44) << text << std::right << "  cost A " << pa.cost << ", B " << pb.cost;
      if (print_impl(pa.impl) == print_impl(pb.impl)) {
        std::cout << "  same Impl" << std::endl;
        continue;
      }
      if (show) std::cout << "\nA's pick:\n" << print_impl(pa.impl) << "B's pick:\n" << print_impl(pb.impl);
      std::vector<codegen::LoadedKernel> kernels;
      const std::string id = std::to_string(built++);
      kernels.push_back(codegen::build_kernel(pa.impl, target, dir, "kriek_a_" + id));
      kernels.push_back(codegen::build_kernel(pb.impl, target, dir, "kriek_b_" + id));
      KRIEK_ASSERT(codegen::verify(kernels[0], spec, 1).ok(), "A's pick does not verify: ", text);
      KRIEK_ASSERT(codegen::verify(kernels[1], spec, 1).ok(), "B's pick does not verify: ", text);
      const codegen::AlternatingRounds timed = codegen::time_rounds(kernels, spec, rounds, 0.2);
      const double seconds[] = {timed.median(0), timed.median(1)};
      const double ratio = timed.median_ratio(1, 0);  // paired: each round's B over its A
      log_sum += std::log(ratio);
      std::cout << std::fixed << std::setprecision(1) << "  A " << seconds[0] * 1e6 << " us, B " << seconds[1] * 1e6
                << " us: B/A " << std::setprecision(3) << ratio << std::defaultfloat << std::endl;
    }
    std::cout << "geomean time B/A over all Specs (same Impl = 1): " << std::fixed << std::setprecision(3)
              << std::exp(log_sum / static_cast<double>(specs.size())) << "\n";
    return 0;
  });
}
