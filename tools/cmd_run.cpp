// `kriek run SPEC`: synthesize, emit (LLVM JIT or C), compile, verify against the reference and time: prints the Impl,
// "verified" with the max error, and GFLOP/s with the fraction of the measured peak (tools/kernel_run.h).
#include <iostream>

#include "impl/printer.h"
#include "spec/error.h"
#include "tools/command.h"
#include "tools/kernel_run.h"
#include "tools/synthesis.h"

namespace kriek::tools {
int run_run(const std::vector<std::string>& raw) {
  std::vector<std::string_view> valued = kSynthValued;
  valued.insert(valued.end(), {"--keep", "--seed", "--run-threads", "--backend"});
  const Args args = parse_args(raw, valued, kSynthSwitches);
  if (args.positional.size() != 1) {
    user_error("usage: kriek run SPEC [--backend llvm|c] [--target T] [--keep DIR] [--seed N] [--run-threads N] ...");
  }
  KernelRunOptions options;
  options.seed = static_cast<std::uint64_t>(positive_flag(args, "--seed", 1));
  options.threads = positive_flag(args, "--run-threads", 0);
  if (const auto* k = args.get("--keep")) options.keep = *k;
  if (const auto* b = args.get("--backend")) options.backend = codegen::parse_backend(*b);
  Synthesis s = synthesize(args.positional[0], args);
  std::cout << print_impl(s.impl) << "\n" << s.stats_line() << "\n";
  if (s.tuned) std::cout << s.tuned_line() << "\n";
  if (const std::string saved = s.save_table(); !saved.empty()) std::cout << saved << "\n";
  std::cout << "\n";
  return run_kernel(s.impl, s.target(), options, std::cout);
}

}  // namespace kriek::tools
