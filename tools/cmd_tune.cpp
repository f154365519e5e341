// `kriek tune SPEC [--top K]`: the K cheapest distinct kernels by the cost model (synth/alternatives.h) compiled,
// verified and timed, the fastest recorded beside the DP table (cache/tuned.h), so that query, run and library
// use it. Prints each candidate's predicted cost and measured time side by side.
#include <iomanip>
#include <iostream>

#include "spec/error.h"
#include "tools/command.h"
#include "tools/synthesis.h"
#include "tools/tuning.h"

namespace kriek::tools {

int run_tune(const std::vector<std::string>& raw) {
  std::vector<std::string_view> valued = kSynthValued;
  valued.push_back("--top");
  const Args args = parse_args(raw, valued, kSynthSwitches);
  if (args.positional.size() != 1) user_error("usage: kriek tune SPEC [--top K] [synth flags]");
  const std::size_t top = static_cast<std::size_t>(positive_flag(args, "--top", 8));
  require_tuning(args, command_target(args), "kriek tune");
  Synthesis s = synthesize(args.positional[0], args);
  const std::optional<TuneOutcome> t = tune(s, top, std::cout);
  if (!t) return 3;
  std::cout << std::setprecision(3) << "chosen: candidate " << t->fastest << " (" << t->seconds * 1e6 << " us, "
            << t->pick_seconds / t->seconds << "x the DP's pick, which another replaces only when "
            << std::defaultfloat << (kTuneMargin - 1) * 100 << "% faster); recorded in "
            << (*s.table_path / "tuned").string() << "\n";
  return 0;
}

}  // namespace kriek::tools
