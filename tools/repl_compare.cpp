// The REPL's `compare`: the session's complete Impl and the DP's pick for the same Spec within the session's
// limits, both compiled with the session's backend, verified against the reference and timed in alternating
// rounds (codegen::time_rounds), so that a hand schedule is judged against the search on one footing: a VM's
// clock and load drift move both alike, where two `run`s minutes apart differ by more than most schedule changes.
#include <iomanip>
#include <ostream>

#include "codegen/measure.h"
#include "impl/cost.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "spec/spec.h"
#include "spec/text.h"
#include "tools/repl_commands.h"

namespace kriek::tools {

void run_compare(ReplSession& s, const std::vector<std::string>&, const std::string&, std::ostream& out) {
  const Schedule& current = s.current();
  if (const std::size_t open = current.holes().size(); open > 0) {
    user_error("compare needs a complete Impl; ", open, " hole", open == 1 ? " is" : "s are",
               " open (`complete` fills them)");
  }
  codegen::require_host_runs(s.target, "compare cannot time it");
  const Spec& spec = current.impl()->spec;
  const std::optional<ImplPtr> pick = s.synth().best(spec, s.limits);
  if (!pick) user_error("the DP has no Impl of ", spec_text(spec), " within the memory limits ", s.limits);
  const ImplPtr impls[] = {current.impl(), *pick};
  const char* names[] = {"this Impl", "the DP's pick"};
  const codegen::RemoveAtExit dir(codegen::make_temp_dir());
  std::vector<codegen::LoadedKernel> kernels;
  for (std::size_t i = 0; i < 2; ++i) {
    kernels.push_back(codegen::build_kernel(impls[i], s.target, dir.path(), "kriek_compare_" + std::to_string(i),
                                            s.backend));
    const Verification v = codegen::verify(kernels.back(), spec, 1);
    if (!v.ok()) {
      user_error(names[i], " does not compute the reference: max error ", v.max_error, " (tolerance ", v.tolerance,
                 "; a kriek bug)");
    }
  }
  const std::string printed[] = {print_impl(impls[0]), print_impl(*pick)};
  const bool same = printed[0] == printed[1];
  constexpr int kRounds = 5;
  const codegen::AlternatingRounds rounds = codegen::time_rounds(kernels, spec, kRounds, 0.2);
  const double seconds[] = {rounds.median(0), rounds.median(1)};
  const CostModel& model = s.model;  // the DP's own prices, as its pick was chosen by
  const double flops = flop_count(spec);
  out << "compare " << spec_text(spec) << ": " << kRounds << " alternating rounds, median round per call\n";
  for (std::size_t i = 0; i < 2; ++i) {
    const double us = seconds[i] * 1e6;
    out << "  " << std::left << std::setw(14) << names[i] << std::right << " predicted " << std::setw(14)
        << evaluate(impls[i], s.target, model).cost << "  measured " << std::fixed << std::setprecision(2)
        << std::setw(10) << us << " us  " << std::setprecision(1) << std::setw(7) << flops / seconds[i] / 1e9
        << " GFLOP/s\n"
        << std::defaultfloat;
  }
  out << "  this Impl takes " << std::fixed << std::setprecision(3) << rounds.median_ratio(0, 1)
      << "x the time of the DP's pick (median of the rounds' ratios)"
      << (same ? " (the same Impl: the spread is the timing noise)" : "") << "\n"
      << std::defaultfloat;
  s.measured[printed[0]] = seconds[0];
  if (!same) s.measured[printed[1]] = seconds[1];
}

}  // namespace kriek::tools
