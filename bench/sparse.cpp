// Sparse DP benchmark (synth/sparse.h): per Spec of a suite of large matmuls and conv layers, a cold exhaustive
// search and a cold sparse one (2 threads, no table), their times, Specs solved (and how many of the sparse
// search's came from a neighbour's decisions), predicted costs, and the two picks compiled, verified and timed in
// alternating rounds in this process (codegen::time_rounds): the measured loss is the median over the rounds of the
// sparse pick's time over the exhaustive pick's.
// --spec TEXT (repeatable) runs those Specs instead of the suite.
// scripts/bench_sparse.sh runs it; never part of the tests.
#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "bench/bench_util.h"
#include "bench/guarded_main.h"
#include "codegen/measure.h"
#include "impl/printer.h"
#include "spec/text.h"
#include "synth/sparse.h"
#include "synth/synthesizer.h"

using namespace kriek;

namespace {

const std::vector<std::string> kSuite = {
    "matmul 512x512x512 f32",       "matmul 768x768x768 f32",   "matmul 1000x1000x1000 f32",
    "matmul 1024x1024x1024 f32",    "matmul 2048x2048x2048 f32", "matmul 384x768x3072 f32",
    "matmul 384x3072x768 f32",      "matmul 48x3072x768 f32",   "matmul 300x700x500 f32",
    "matmul 640x200x900 f32",       "matmul 1200x96x1500 f32",  "matmul 128x768x2304 f32",
    "matmul 128x3072x768 f32",      "conv[pad=1] 1x56x56x64 3x3x64x64 f32",
    "conv[stride=2,pad=1] 1x56x56x64 3x3x64x128 f32", "conv 1x28x28x128 1x1x128x512 f32",
    "conv[pad=1] 1x7x7x512 3x3x512x512 f32",          "conv[stride=2,pad=3] 1x224x224x3 7x7x3x64 f32"};
const std::vector<std::string> kQuickSuite = {"matmul 768x768x768 f32", "matmul 300x700x500 f32",
                                              "conv[pad=1] 1x7x7x512 3x3x512x512 f32"};

constexpr int kRounds = 5;

struct Search {
  double seconds = 0;
  std::uint64_t specs = 0, transplanted = 0;
  Cost cost = 0;
  ImplPtr impl;
};

Search search(const Spec& spec, const Target& target, bool sparse) {
  const std::optional<SparseGrid> grid = sparse ? std::optional<SparseGrid>(SparseGrid{}) : std::nullopt;
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{.threads = 2, .sparse = grid});
  const auto start = std::chrono::steady_clock::now();
  const Frontier f = synth.solve(spec);
  Search s;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.specs = synth.stats().specs_solved;
  s.transplanted = synth.stats().specs_transplanted;
  const std::ptrdiff_t best = f.best_within(MemoryUse{});
  KRIEK_ASSERT(best >= 0, "nothing fits for ", spec_text(spec));
  s.cost = f.entries[static_cast<std::size_t>(best)].cost;
  s.impl = synth.reconstruct(spec, static_cast<std::size_t>(best));
  return s;
}

struct Row {
  std::string spec;
  Search exhaustive, sparse;
  double ex_seconds = 0, sp_seconds = 0;  ///< per call, the median round of each (codegen::time_rounds)
  double loss = 0;                        ///< the median over the rounds of sparse / exhaustive time, less 1
};

}  // namespace

int main(int argc, char** argv) {
  return bench::guarded_main("bench_sparse", [&] {
    std::string csv = "bench/results/sparse.csv";
    bool quick = false;
    std::vector<std::string> specs;
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
      else if (!std::strcmp(argv[i], "--quick")) quick = true;
      else if (!std::strcmp(argv[i], "--spec") && i + 1 < argc) specs.push_back(argv[++i]);
      else {
        std::cerr << "usage: bench_sparse [--quick] [--spec TEXT]... [--csv FILE]\n";
        return 1;
      }
    }
    if (specs.empty()) specs = quick ? kQuickSuite : kSuite;
    const Target& target = host_target();
    const std::filesystem::path dir = codegen::make_temp_dir();
    std::vector<Row> rows;
    std::cout << "load: " << bench::load_average() << "\n"
              << std::left << std::setw(48) << "spec" << std::right << std::setw(9) << "ex s" << std::setw(9)
              << "sp s" << std::setw(9) << "speedup" << std::setw(10) << "ex Specs" << std::setw(10) << "sp Specs"
              << std::setw(10) << "(exact)" << std::setw(10) << "cost +%" << std::setw(10) << "time +%" << "\n";
    for (const std::string& text : specs) {
      Row r{text, {}, {}, 0, 0, 0};
      const Spec spec = parse_spec(text, target);
      r.exhaustive = search(spec, target, false);
      r.sparse = search(spec, target, true);
      const std::string id = std::to_string(rows.size());
      // The same Impl built twice when both picks are one: their spread is the timing noise.
      const bool same = print_impl(r.exhaustive.impl) == print_impl(r.sparse.impl);
      std::vector<codegen::LoadedKernel> kernels;
      kernels.push_back(codegen::build_kernel(r.exhaustive.impl, target, dir, "kriek_ex_" + id));
      kernels.push_back(codegen::build_kernel(same ? r.exhaustive.impl : r.sparse.impl, target, dir, "kriek_sp_" + id));
      KRIEK_ASSERT(codegen::verify(kernels[0], spec, 1).ok(), "the exhaustive pick does not verify: ", text);
      KRIEK_ASSERT(codegen::verify(kernels[1], spec, 1).ok(), "the sparse pick does not verify: ", text);
      const codegen::AlternatingRounds timed = codegen::time_rounds(kernels, spec, kRounds, 0.2);
      r.ex_seconds = timed.median(0);
      r.sp_seconds = timed.median(1);
      r.loss = timed.median_ratio(1, 0) - 1;  // paired: each round's sparse pick over its exhaustive one
      rows.push_back(r);
      const std::uint64_t exact = r.sparse.specs - r.sparse.transplanted;
      std::cout << std::left << std::setw(48) << text << std::right << std::fixed << std::setprecision(2)
                << std::setw(9) << r.exhaustive.seconds << std::setw(9) << r.sparse.seconds << std::setw(8)
                << r.exhaustive.seconds / r.sparse.seconds << "x" << std::setw(10) << r.exhaustive.specs
                << std::setw(10) << r.sparse.specs << std::setw(10) << exact << std::setprecision(1) << std::setw(9)
                << 100.0 * (static_cast<double>(r.sparse.cost) / static_cast<double>(r.exhaustive.cost) - 1) << "%"
                << std::setw(9) << 100.0 * r.loss << "%" << (same ? " (same Impl)" : "")
                << std::endl;
    }
    std::ofstream out(csv);
    out << "spec,exhaustive_s,sparse_s,exhaustive_specs,sparse_specs,sparse_transplanted,exhaustive_cost,sparse_cost,"
           "exhaustive_call_s,sparse_call_s\n";
    std::vector<double> speedup, loss, fewer;
    for (const Row& r : rows) {
      out << '"' << r.spec << "\"," << r.exhaustive.seconds << ',' << r.sparse.seconds << ',' << r.exhaustive.specs
          << ',' << r.sparse.specs << ',' << r.sparse.transplanted << ',' << r.exhaustive.cost << ',' << r.sparse.cost
          << ',' << r.ex_seconds << ',' << r.sp_seconds << '\n';
      speedup.push_back(r.exhaustive.seconds / r.sparse.seconds);
      loss.push_back(r.loss);
      fewer.push_back(static_cast<double>(r.exhaustive.specs) /
                      static_cast<double>(r.sparse.specs - r.sparse.transplanted));
    }
    std::cout << std::setprecision(2) << "median search speed-up " << bench::median(speedup)
              << "x, median Specs solved exhaustively " << bench::median(fewer) << "x fewer, median kernel time "
              << std::showpos << 100 * bench::median(loss) << "%, worst "
              << 100 * *std::max_element(loss.begin(), loss.end())
              << std::noshowpos << "%; CSV in " << csv << "\n";
    return 0;
  });
}
