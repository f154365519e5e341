// Measured tuning (tuning.h): candidates, verification, alternating timing rounds, the record.
#include "tools/tuning.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

#include "cache/tuned.h"
#include "codegen/emit_llvm.h"
#include "codegen/measure.h"
#include "spec/error.h"
#include "synth/alternatives.h"

namespace kriek::tools {

void require_tuning(const Args& args, const Target& target, std::string_view command) {
  if (args.has("--no-table")) user_error(command, " records what it measures beside the DP table; drop --no-table");
  // Measuring picks among estimates (synth/sparse.h) would record a choice the exhaustive search may not offer.
  if (args.has("--sparse")) user_error(command, " times the candidates of an exhaustive search; drop --sparse");
  codegen::require_host_runs(target, std::string(command) + " cannot time it");
}

std::optional<TuneOutcome> tune(Synthesis& s, std::size_t top, std::ostream& out) {
  KRIEK_ASSERT(s.table_path.has_value(), "tune needs a table to record beside");
  KRIEK_ASSERT(codegen::host_runs(s.target()), "tune of code this machine cannot run");
  const Target& target = s.target();
  // The first `top` distinct kernels of more alternatives than asked for.
  const FrontierLookup lookup = synthesizer_lookup(*s.synth, s.table ? &*s.table : nullptr);
  std::vector<FrontierEntry> candidates;
  std::vector<ImplPtr> impls;
  const auto shape = [&](const ImplPtr& impl) { return codegen::code_shape(impl, target); };
  for (Alternative& a : distinct_alternatives(*s.synth, s.spec, s.limits, top, lookup, shape)) {
    candidates.push_back(std::move(a.decision));
    impls.push_back(std::move(a.impl));
  }
  if (candidates.empty()) user_error("no Impl of ", s.spec, " fits the memory limits");
  // Saved first: every child a candidate names is then in the table, so its Impl rebuilds from the table alone.
  if (const std::string saved = s.save_table(); !saved.empty()) out << saved << "\n";
  const codegen::RemoveAtExit dir(codegen::make_temp_dir());  // whatever the outcome
  out << "tuning " << s.spec << ": " << candidates.size() << " candidates within " << s.limits << "\n"
      << "    #  predicted (1/16 cycles)  measured per call  GFLOP/s  root action\n";
  // Every candidate built and verified first, then timed in alternating rounds (codegen::time_rounds: the
  // fused matmul + bias + relu 256^3's last candidates, timed one after another, measured 1.6x faster than its
  // first).
  std::vector<codegen::LoadedKernel> kernels;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    kernels.push_back(codegen::build_kernel(impls[i], target, dir.path(), "kriek_tune_" + std::to_string(i)));
    const Verification v = codegen::verify(kernels.back(), s.spec, 1);
    if (!v.ok()) {
      out << "candidate " << i << " does NOT verify: max error " << v.max_error << " (tolerance " << v.tolerance
          << ")\n";
      return std::nullopt;
    }
  }
  constexpr int kRounds = 5;
  const std::vector<double> best = codegen::time_rounds(kernels, s.spec, kRounds, 0.05).medians();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    out << std::setw(5) << i << std::setw(23) << candidates[i].cost << std::setw(16) << std::fixed
        << std::setprecision(2) << best[i] * 1e6 << " us" << std::setw(9) << std::setprecision(1)
        << flop_count(s.spec) / best[i] * 1e-9 << "  " << action_text(candidates[i].action, s.spec)
        << (i == 0 ? "  (the DP's pick)" : "") << "\n";
  }
  std::size_t fastest = static_cast<std::size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  if (best[fastest] * kTuneMargin > best[0]) fastest = 0;
  const TunedRecord record{candidates[fastest], best[fastest], best[0],
                           codegen::code_hash({impls[fastest], impls[0]}, target)};
  record_tuned(*s.table_path, target, s.synth->model(), s.spec, s.limits, record);
  s.impl = impls[fastest];
  s.tuned = record;
  return TuneOutcome{candidates.size(), fastest, best[fastest], best[0]};
}

}  // namespace kriek::tools
