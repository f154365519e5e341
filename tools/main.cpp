// The kriek command: dispatch to subcommands, --help and --version, and the one place user errors become a
// one-line message and exit status 1.
#include <iostream>

#include "spec/error.h"
#include "tools/command.h"

namespace kriek::tools {

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"spec", "kriek spec check TEXT [--target T]", "parse and validate a Spec, print its long form", run_spec},
      {"target", "kriek target [--target T] | --dump-cpuid | --from-cpuid FILE",
       "print a target: ISA, levels, capacities, ways, vector widths, cores and detection notes; --dump-cpuid "
       "records this machine's CPUID leaves, --from-cpuid shows what detection makes of a recorded dump",
       run_target},
      {"synth",
       "kriek synth SPEC [--target T] [--memory L1=32K,...] [--threads N] [--frontier] [--graph FILE] "
       "[--table FILE | --no-table]",
       "synthesize the best Impl of a Spec and print it with costs and search statistics; reads and extends the "
       "DP table",
       run_synth},
      {"emit", "kriek emit SPEC [--format c|impl] [-o FILE] [--name NAME] [--target T] [--memory ...] [--table FILE]",
       "synthesize a Spec and emit its kernel as C (or its Impl tree)", run_emit},
      {"run", "kriek run SPEC [--keep DIR] [--seed N] [--run-threads N] [--target T] [--memory ...] [--table FILE]",
       "synthesize, emit, compile, verify against the reference and time a kernel", run_run},
      {"query", "kriek query SPEC [--table FILE] [--memory ...] [--frontier]",
       "the best Impl and frontier of a Spec from the persisted DP table alone", run_query},
      {"table", "kriek table stats FILE | merge IN... -o OUT | export FILE",
       "inspect, combine and export DP tables", run_table},
      {"library",
       "kriek library LIST -o DIR [--name NAME] [--keep-going] [--shard I/N] [--backend c] [--target T] "
       "[--memory ...] [--threads N] [--table FILE | --no-table]",
       "a kernel library from a list of Specs: header, shared and static libraries, CMake and pkg-config files, "
       "manifest; every kernel verified; only changed kernels recompiled",
       run_library},
      {"repl", "kriek repl [--target T]", "schedule by hand, with the DP completing holes (see README)",
       run_repl_command},
      {"script", "kriek script FILE [--target T]", "replay a REPL script; stops at the first failing line",
       run_script},
  };
  return all;
}

namespace {

void print_help() {
  std::cout << "kriek " << KRIEK_VERSION << ": a schedule synthesizer for tensor kernels\n\nusage:\n";
  for (const Command& c : commands()) {
    std::cout << "  " << c.usage << "\n      " << c.summary << (c.run ? "" : " (not built yet)") << "\n";
  }
  std::cout << "\nSpecs are written in the spec text of README.md, e.g. 'matmul 128x256x64 f32'.\n";
}

}  // namespace
}  // namespace kriek::tools

int main(int argc, char** argv) {
  using namespace kriek::tools;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "kriek " << KRIEK_VERSION << "\n";
    return 0;
  }
  for (const Command& c : commands()) {
    if (c.name != args[0]) continue;
    if (!c.run) {
      std::cerr << "kriek: '" << c.name << "' is not built yet\n";
      return 2;
    }
    try {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
    } catch (const kriek::UserError& e) {
      std::cerr << "kriek: error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "kriek: error: unknown subcommand '" << args[0] << "' (see kriek --help)\n";
  return 1;
}
