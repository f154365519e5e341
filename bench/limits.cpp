// The L2 share benchmark: what the picks within other L2 limits measure against the default pick's
// (impl/memory.h's kDefaultL2Percent of L2). Per Spec, one search (its frontier holds the cheapest Impl under every
// memory class), then the cheapest entry within each share of L2 compiled (LLVM), verified and timed in alternating
// rounds in this process (codegen::time_alternating); picks that are the same Impl are built once. Prints each
// share's predicted cost and measured time over the default's, and the geometric mean per share.
//
//   build/bench/bench_limits [--spec TEXT]... [--shares 50,62,75,100] [--rounds N] [--parallel] [--profile FILE]
//
// Specs run serial (one core: on a shared machine a parallel kernel measures how busy the other core is) unless
// --parallel. --profile reads a calibrated target profile, as the commands read the default one. Build it with
// `cmake --build build --target bench_limits`; never part of the tests.
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

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
    "matmul 256x256x256 f32",  "matmul 512x512x512 f32",  "matmul 1024x1024x1024 f32", "matmul 257x257x257 f32",
    "matmul 128x768x768 f32",  "matmul 128x3072x768 f32", "matmul 200x300x170 f32",    "matmul 300x700x500 f32",
    "matmul 1200x96x1500 f32", "matmul 384x768x3072 f32", "conv[pad=1] 1x56x56x64 3x3x64x64 f32",
    "conv 1x28x28x128 1x1x128x512 f32", "conv[pad=1] 1x14x14x256 3x3x256x256 f32",
    "conv[pad=1] 1x7x7x512 3x3x512x512 f32"};

std::vector<int> parse_shares(const std::string& text) {
  std::vector<int> shares;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const int share = std::atoi(item.c_str());
    if (share <= 0 || share > 100) throw UserError("--shares: '" + item + "' is not a percentage in 1..100");
    shares.push_back(share);
  }
  if (shares.empty()) throw UserError("--shares: no percentages");
  return shares;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded_main("bench_limits", [&] {
    std::vector<std::string> specs;
    std::vector<int> shares{50, 62, 75, 100};
    int rounds = 7;
    bool parallel = false;
    Target target = host_target();
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--spec") && i + 1 < argc) specs.push_back(argv[++i]);
      else if (!std::strcmp(argv[i], "--shares") && i + 1 < argc) shares = parse_shares(argv[++i]);
      else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
      else if (!std::strcmp(argv[i], "--parallel")) parallel = true;
      else if (!std::strcmp(argv[i], "--profile") && i + 1 < argc)
        target = with_profile(target, read_profile(argv[++i]));
      else {
        std::cerr << "usage: bench_limits [--spec TEXT]... [--shares 50,62,75,100] [--rounds N] [--parallel] "
                     "[--profile FILE]\n";
        return 1;
      }
    }
    if (specs.empty()) specs = kSuite;
    const MemoryUse base = default_limits(target);
    const std::int64_t l2 = capacities(target)[Level::L2];
    const std::filesystem::path dir = codegen::make_temp_dir();
    std::cout << "load: " << bench::load_average() << "; L2 " << l2 / 1024 << " KiB, default share "
              << kDefaultL2Percent << "%; time and cost of each share's pick over the default's\n";
    std::map<int, std::vector<double>> ratios;
    for (const std::string& text : specs) {
      const Spec spec = parse_spec(parallel ? text : text + " serial", target);
      Synthesizer synth(target, CostModel::for_target(target), SynthOptions{});
      const Frontier f = synth.solve(spec);
      std::vector<codegen::LoadedKernel> kernels;
      std::vector<std::size_t> kernel_of;  // per share
      std::vector<Cost> costs;
      std::map<std::string, std::size_t> built;  // printed Impl -> kernel
      for (const int share : shares) {
        MemoryUse limits = base;
        limits[Level::L2] = l2 * share / 100;
        const std::ptrdiff_t best = f.best_within(limits);
        KRIEK_ASSERT(best >= 0, "nothing fits ", share, "% of L2 for ", text);
        costs.push_back(f.entries[static_cast<std::size_t>(best)].cost);
        const ImplPtr impl = synth.reconstruct(spec, static_cast<std::size_t>(best));
        const std::string printed = print_impl(impl);
        auto [it, fresh] = built.emplace(printed, kernels.size());
        if (fresh) {
          kernels.push_back(codegen::build_kernel(impl, target, dir, "kriek_l2_" + std::to_string(kernels.size())));
          KRIEK_ASSERT(codegen::verify(kernels.back(), spec, 1).ok(), "the pick within ", share,
                       "% of L2 does not verify: ", text);
        }
        kernel_of.push_back(it->second);
      }
      const std::vector<double> seconds =
          kernels.size() > 1 ? codegen::time_alternating(kernels, spec, rounds, 0.2) : std::vector<double>{1.0};
      std::cout << std::left << std::setw(44) << text << std::right << std::fixed;
      for (std::size_t s = 0; s < shares.size(); ++s) {
        const double time = seconds[kernel_of[s]] / seconds[kernel_of[0]];
        const double cost = static_cast<double>(costs[s]) / static_cast<double>(costs[0]);
        ratios[shares[s]].push_back(time);
        std::cout << "  " << shares[s] << "%: " << std::setprecision(3) << time << " (cost " << cost << ")"
                  << (s > 0 && kernel_of[s] == kernel_of[0] ? "=" : " ");
      }
      std::cout << std::endl;
    }
    std::cout << "geomean time over the default's pick:";
    for (const auto& [share, r] : ratios) {
      double log_sum = 0;
      for (double x : r) log_sum += std::log(x);
      std::cout << "  " << share << "% " << std::setprecision(3) << std::exp(log_sum / static_cast<double>(r.size()));
    }
    std::cout << "\n('=' marks a pick that is the default's own Impl.)\n";
    return 0;
  });
}
