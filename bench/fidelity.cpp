// Fidelity benchmark: how well the cost model ranks what it predicts. For each Spec of a suite the K cheapest
// predicted Impls (synth/alternatives.h, what kriek tune measures) are compiled (--backend: LLVM by default, as
// kriek run, tune and library build kernels), verified and timed together in alternating rounds; per Spec the
// Spearman rank correlation of predicted cost against measured time, and how much slower the DP's pick (the
// cheapest predicted) is than the fastest measured. Done with the default constants and with a calibrated profile
// (--profile FILE). Each Spec's kernels are timed in two independent passes: the rank correlation of the two passes
// (the retest rho) is the most any model can reach against timings this noisy, and the model's rho is taken
// against their mean. The default suite is drawn from the kernel benchmarks (the matmul suite's shapes, batched,
// reductions, elementwise ops, fused epilogues, small conv layers: kernels of a few to a few hundred microseconds,
// as users run them); --suite small is the earlier one of matmuls from 16^3 and ops of 64x64, kernels of 0.04-3 us
// whose candidates often differ by less than their timing noise. Kernels run on one core unless --parallel: on a
// shared machine a parallel kernel measures how busy the other cores are. scripts/bench_fidelity.sh runs it; never
// part of the tests.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>

#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "cache/tuned.h"
#include "codegen/backend.h"
#include "codegen/measure.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "spec/profile.h"
#include "spec/text.h"
#include "synth/alternatives.h"

using namespace kriek;

namespace {

/// The kernel benchmarks' shapes (scripts/bench_kernels.sh's matmul suite, bench/ops.cpp's reductions, elementwise
/// ops and epilogues, two of its conv layers) whose searches take seconds, not minutes, cold.
const std::vector<std::string> kSuite = {
    "matmul 64x64x64 f32",          "matmul 128x128x128 f32",     "matmul 256x256x256 f32",
    "matmul 257x257x257 f32",       "matmul 512x512x512 f32",     "matmul 82x99x63 f32",
    "matmul 99x36x67 f32",          "matmul 32x52x93 f32",        "matmul 17x160x3 f32",
    "matmul 96x256x5 f32",          "matmul 1024x64x2 f32",       "matmul 4096x64x64 f32",
    "matmul 64x4096x64 f32",        "matmul 4x64x64x64 f32",      "matmul 16x40x64x40 f32",
    "reducesum[axis=1] 256x256 f32", "reducesum[axis=0] 256x256 f32", "reducesum[axis=1] 250x333 f32",
    "reducesum[axis=0] 250x333 f32", "relu 256x256 f32",           "relu 1024x1024 f32",
    "add 256x256 1x256 f32",        "max 333x250 f32",            "compose[add, relu] 256x256 256x256 f32",
    "compose[matmul, add, relu] 128x128 128x128 1x128 f32", "compose[matmul, add, relu] 82x99 99x63 1x63 f32",
    "conv[pad=1] 1x14x14x64 3x3x64x64 f32", "conv 1x28x28x128 1x1x128x64 f32"};
/// Sub-microsecond to few-microsecond kernels (the suite until 2026-11-27).
const std::vector<std::string> kSmallSuite = {
    "matmul 16x16x16 f32",   "matmul 32x32x32 f32",  "matmul 64x64x64 f32", "matmul 48x48x48 f32",
    "matmul 128x128x128 f32", "matmul 33x33x33 f32", "matmul 63x63x63 f32", "matmul 17x64x40 f32",
    "matmul 1x256x256 f32",  "matmul 256x16x64 f32", "matmul 8x512x8 f32",  "matmul 2x32x32x32 f32",
    "relu 64x64 f32",        "add 128x128 f32",      "add 64x64 1x64 f32",  "mul 33x65 f32",
    "max 100x100 f32",       "reducesum[axis=1] 64x256 f32", "reducesum[axis=0] 256x64 f32", "relu 1000 f32"};
const std::vector<std::string> kQuickSuite = {"matmul 82x99x63 f32", "matmul 256x256x256 f32", "add 256x256 1x256 f32",
                                              "reducesum[axis=1] 256x256 f32"};

/// Ranks 1..n of `v`, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i + j) / 2) + 1;
    i = j + 1;
  }
  return r;
}

/// Spearman's rho: the Pearson correlation of the ranks (NaN when either side is constant).
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : std::nan("");
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// Rounds of the alternating timing (codegen::time_rounds) and each round's budget per kernel.
constexpr int kRounds = 9;
constexpr double kRoundSeconds = 0.02;
/// A Spec whose two timing passes rank its candidates at least this alike has timings a model can be judged by.
constexpr double kReliableRetest = 0.8;

/// Distinct kernels in this process get distinct entry points (the C backend loads each by path).
std::size_t kernels_compiled = 0;

/// The distinct kernels among one Spec's candidates under every model (both models often propose the same ones),
/// each compiled and verified once, then all timed together in alternating rounds: a drift of the machine (the
/// VMs here change speed by 20-30% within minutes) moves them alike instead of ranking the drift.
struct SpecMeasurements {
  std::filesystem::path dir;
  codegen::Backend backend;
  std::vector<codegen::LoadedKernel> kernels;
  std::map<std::string, std::size_t> index;  ///< printed Impl -> its kernel
  std::vector<double> first, second;         ///< per kernel, its median round in each pass, after time()

  void add(const ImplPtr& impl, const Target& target) {
    const std::string text = print_impl(impl);
    if (index.contains(text)) return;
    const std::string name = "kriek_fidelity_" + std::to_string(kernels_compiled++);
    kernels.push_back(codegen::build_kernel(impl, target, dir, name, backend));
    KRIEK_ASSERT(codegen::verify(kernels.back(), impl->spec, 1).ok(), "a candidate does not verify: ", text);
    index.emplace(text, kernels.size() - 1);
  }
  void time(const Spec& spec) {
    first = codegen::time_rounds(kernels, spec, kRounds, kRoundSeconds).medians();
    second = codegen::time_rounds(kernels, spec, kRounds, kRoundSeconds).medians();
  }
  /// The kernel of an Impl this has added, by its printed text.
  std::size_t kernel_of(const std::string& printed) const { return index.at(printed); }
};

/// One Spec's K cheapest predicted Impls under one model, distinct as kernels.
struct Candidates {
  std::string model;
  std::vector<double> predicted;
  std::vector<ImplPtr> impls;
};

/// One candidate as measured: its predicted cost, its time in each pass and its Impl on one line.
struct Measured {
  double predicted = 0, first = 0, second = 0;
  std::string impl;
};

struct Row {
  std::string spec, model;
  std::size_t candidates = 0;
  double rho = 0, pick_gap = 0;  ///< pick_gap: the pick's time over the fastest's, less 1
  double retest = 0;             ///< the rank correlation of the candidates' times in the two passes
  std::vector<Measured> each;    ///< the candidates in predicted order (the pick first)
};

Candidates candidates(const std::string& text, const Target& target, const std::string& model_name,
                      const std::filesystem::path& table_path, std::size_t k, bool parallel) {
  const CostModel model = CostModel::for_target(target);
  Spec spec = parse_spec(text, target);
  spec.serial_only = !parallel;
  // The benchmark's tables are caches, like the default one: one of another kriek is replaced, not an error.
  bool stale = false;
  std::string note;
  std::optional<Table> table = open_default_table(table_path, target, model, stale, note, "the fidelity table");
  if (!note.empty()) std::cerr << "bench_fidelity: " << note << "\n";
  Synthesizer synth(target, model, SynthOptions{2});
  if (table) synth.set_table(&*table);
  const FrontierLookup lookup = synthesizer_lookup(synth, table ? &*table : nullptr);
  // The first k distinct kernels, as kriek tune takes them.
  Candidates out{model_name, {}, {}};
  const auto shape = [&](const ImplPtr& impl) { return codegen::code_shape(impl, target); };
  for (Alternative& a : distinct_alternatives(synth, spec, default_limits(target), k, lookup, shape)) {
    out.predicted.push_back(static_cast<double>(a.decision.cost));
    out.impls.push_back(std::move(a.impl));
  }
  save_table(table_path, target, model, [&](const FrontierVisitor& v) { synth.for_each_encoded(v); }, !stale);
  return out;
}

/// One model's row of a Spec whose kernels `m` has timed.
Row row_of(const std::string& text, const Candidates& c, const SpecMeasurements& m) {
  // Each candidate's time is the mean of its two passes.
  std::vector<double> measured, first, second;
  Row row{text, c.model, c.impls.size(), 0, 0, 0, {}};
  for (std::size_t i = 0; i < c.impls.size(); ++i) {
    std::string impl = print_impl(c.impls[i]);
    const std::size_t kernel = m.kernel_of(impl);
    first.push_back(m.first[kernel]);
    second.push_back(m.second[kernel]);
    measured.push_back((first.back() + second.back()) / 2);
    std::replace(impl.begin(), impl.end(), '\n', '/');
    std::replace(impl.begin(), impl.end(), '"', '\'');
    row.each.push_back({c.predicted[i], first.back(), second.back(), std::move(impl)});
  }
  row.rho = spearman(c.predicted, measured);
  row.retest = spearman(first, second);
  row.pick_gap = measured.empty() ? 0 : measured[0] / *std::min_element(measured.begin(), measured.end()) - 1;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string profile_file, csv = "bench/results/fidelity.csv", tables = "build/fidelity-tables", suite = "kernels";
  std::string backend_name(codegen::backend_name(codegen::kDefaultBackend));
  std::size_t k = 8;
  bool quick = false, parallel = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--profile") && i + 1 < argc) profile_file = argv[++i];
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!std::strcmp(argv[i], "--tables") && i + 1 < argc) tables = argv[++i];
    else if (!std::strcmp(argv[i], "--top") && i + 1 < argc) k = static_cast<std::size_t>(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--suite") && i + 1 < argc) suite = argv[++i];
    else if (!std::strcmp(argv[i], "--backend") && i + 1 < argc) backend_name = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--parallel")) parallel = true;
    else if (!std::strcmp(argv[i], "--spec") && i + 1 < argc) specs.push_back(argv[++i]);
    else {
      std::cerr << "usage: bench_fidelity [--profile FILE] [--top K] [--suite kernels|small | --quick | "
                   "--spec TEXT...] [--backend llvm|c] [--parallel] [--csv FILE] [--tables DIR]\n";
      return 1;
    }
  }
  if (suite != "kernels" && suite != "small") {
    std::cerr << "bench_fidelity: unknown suite '" << suite << "' (kernels or small)\n";
    return 1;
  }
  try {
    const codegen::Backend backend = codegen::parse_backend(backend_name);
    std::vector<std::pair<std::string, Target>> models = {{"default", host_target()}};
    if (!profile_file.empty()) models.emplace_back("profile", with_profile(host_target(), read_profile(profile_file)));
    std::filesystem::create_directories(tables);
    const std::filesystem::path dir = codegen::make_temp_dir();
    std::vector<Row> rows;
    std::cout << std::left << std::setw(56) << "spec" << std::setw(9) << "model" << std::right << std::setw(4) << "K"
              << std::setw(8) << "rho" << std::setw(9) << "retest" << std::setw(11) << "pick gap" << "\n";
    if (specs.empty()) specs = quick ? kQuickSuite : suite == "small" ? kSmallSuite : kSuite;
    for (const std::string& text : specs) {
      std::vector<Candidates> per_model;
      SpecMeasurements m{dir, backend, {}, {}, {}, {}};
      for (const auto& [name, target] : models) {
        // One table per target and cost model: a new calibration (another profile) or model version gets a table
        // of its own.
        std::ostringstream file;
        file << name << "-" << std::hex << target.fingerprint() << "-" << CostModel::for_target(target).fingerprint()
             << ".table";
        const std::filesystem::path table = std::filesystem::path(tables) / file.str();
        per_model.push_back(candidates(text, target, name, table, quick ? std::min<std::size_t>(k, 4) : k, parallel));
        for (const ImplPtr& impl : per_model.back().impls) m.add(impl, target);
      }
      if (m.kernels.empty()) continue;
      m.time(per_model.front().impls.front()->spec);
      for (const Candidates& c : per_model) {
        rows.push_back(row_of(text, c, m));
        const Row& r = rows.back();
        std::cout << std::left << std::setw(56) << r.spec << std::setw(9) << r.model << std::right << std::setw(4)
                  << r.candidates << std::fixed << std::setprecision(2) << std::setw(8) << r.rho << std::setw(9)
                  << r.retest << std::setw(10) << 100 * r.pick_gap << "%" << std::endl;
      }
    }
    std::ofstream out(csv);
    out << "spec,model,candidates,spearman,retest_spearman,pick_gap\n";
    for (const Row& r : rows) {
      out << '"' << r.spec << "\"," << r.model << "," << r.candidates << "," << r.rho << "," << r.retest << ","
          << r.pick_gap << "\n";
    }
    // Every candidate's prediction and times beside the Spec's summary: the data a change of the model starts from.
    const std::filesystem::path each_csv =
        std::filesystem::path(csv).replace_filename(std::filesystem::path(csv).stem().string() + "_candidates.csv");
    std::ofstream each(each_csv);
    each << "spec,model,rank,predicted,seconds_first,seconds_second,impl\n";
    for (const Row& r : rows) {
      for (std::size_t i = 0; i < r.each.size(); ++i) {
        const Measured& m = r.each[i];
        each << '"' << r.spec << "\"," << r.model << "," << i << "," << m.predicted << "," << m.first << ","
             << m.second << ",\"" << m.impl << "\"\n";
      }
    }
    std::cout << "\n";
    for (const auto& [name, target] : models) {
      std::vector<double> rho, retest, reliable;
      std::size_t within = 0, n = 0;
      for (const Row& r : rows) {
        if (r.model != name) continue;
        rho.push_back(r.rho);
        retest.push_back(r.retest);
        if (r.retest >= kReliableRetest) reliable.push_back(r.rho);
        within += r.pick_gap <= 0.05;
        ++n;
      }
      std::cout << name << ": median rho " << std::setprecision(3) << median(rho) << " (retest " << median(retest)
                << ") over " << n << " Specs, " << median(reliable) << " over the " << reliable.size()
                << " whose retest is at least " << kReliableRetest << "; the DP's pick within 5% of the fastest on "
                << within << " of " << n << " (" << std::setprecision(0)
                << 100.0 * static_cast<double>(within) / static_cast<double>(n) << "%)\n";
    }
    std::cout << kernels_compiled << " kernels (" << codegen::backend_name(backend)
              << "), each Spec's timed together in two passes of " << kRounds
              << " alternating rounds (the median round of each; retest: the rank correlation of the two passes, the "
                 "most a model can reach against them); CSV in "
              << csv << ", each candidate's prediction and times in " << each_csv.string() << "\n";
  } catch (const UserError& e) {
    std::cerr << "bench_fidelity: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
