// The kriek command: dispatch to subcommands, --help (of all, or of one) and --version, and the one place user
// errors become a one-line message and exit status 1.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "spec/error.h"
#include "tools/command.h"

namespace kriek::tools {

// Each entry's help is its entry in README.md's command list, character for character (test/tools/cli_test.cpp
// compares them): change both together.
const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"spec",
       "kriek spec check TEXT [--target T]      parse and validate a Spec, print its long form\n",
       run_spec},
      {"target",
       "kriek target [--target T] [--dump-cpuid | --from-cpuid FILE]\n"
       "                                        the target: ISA, levels with capacities and ways, vector registers,\n"
       "                                        cores, detection notes, fingerprint, its default DP table, and the C\n"
       "                                        flags its kernels are compiled with; --dump-cpuid records this\n"
       "                                        machine's CPUID leaves (the fixture format of test/spec/cpuid/),\n"
       "                                        --from-cpuid shows what detection makes of a recorded dump\n",
       run_target},
      {"synth",
       "kriek synth SPEC [--target T] [--memory L1=32K,VRF=1K,...] [--threads N] [--table FILE | --no-table]\n"
       "      [--frontier] [--graph FILE] [--max-memory SIZE] [--sparse]\n"
       "                                        synthesize: the best Impl within the memory limits, each node's cost\n"
       "                                        (in 1/16 cycles) in the right column, total cost and peak memory, the\n"
       "                                        frontier with --frontier, the subproblem graph as GraphViz with --graph,\n"
       "                                        and search statistics (Specs solved, actions tried, time, threads, RSS);\n"
       "                                        reads the DP table first and saves what it solved (see \"The DP table\");\n"
       "                                        past SIZE resident bytes (e.g. 2G) solved frontiers go to a spill file;\n"
       "                                        --sparse: the sparse DP (faster, may pick slower kernels; a table of\n"
       "                                        its own beside the DP table, X.sparse2.table for X.table)\n",
       run_synth},
      {"emit",
       "kriek emit SPEC [--format c|llvm|obj|impl] [-o FILE] [--name NAME] [synth flags]\n"
       "                                        the synthesized kernel as C, LLVM IR, a position-independent object\n"
       "                                        file (obj, needs -o) or its Impl tree; -o writes FILE atomically\n",
       run_emit},
      {"run",
       "kriek run SPEC [--backend llvm|c] [--keep DIR] [--seed N] [--run-threads N] [synth flags]\n"
       "                                        synthesize, emit, compile (C with $CC, or LLVM JIT in process), verify\n"
       "                                        against the reference, time: prints the Impl, \"verified: max error ...\"\n"
       "                                        and GFLOP/s with the % of peak\n",
       run_run},
      {"query",
       "kriek query SPEC [--table FILE] [--target T] [--memory ...] [--frontier] [--sparse]\n"
       "                                        the best Impl and frontier from the DP table alone (--sparse: from\n"
       "                                        the table a sparse search keeps)\n",
       run_query},
      {"table",
       "kriek table stats FILE | merge IN... -o OUT | export FILE | compact FILE | gc FILE --max-size SIZE\n"
       "                                        a DP table's statistics; the union of tables; a table as JSON lines;\n"
       "                                        its segments folded into one; its size bounded (section \"The DP table\")\n",
       run_table},
      {"library",
       "kriek library LIST -o DIR [--name NAME] [--backend llvm|c] [--keep-going] [--shard I/N] [--tune K]\n"
       "      [synth flags]\n"
       "                                        a kernel library from a list of Specs: header, libraries, CMake and\n"
       "                                        pkg-config files, manifest (section \"Kernel libraries\")\n",
       run_library},
      {"calibrate",
       "kriek calibrate [-o FILE] [--quick]     measure this machine (FMA throughput and latency per vector width,\n"
       "                                        load, store and broadcast ports, bandwidth and latency of L1, L2, L3\n"
       "                                        and DRAM, packing copies, parallel start, reads of lines another core\n"
       "                                        wrote) in under a minute and write its target profile, by default\n"
       "                                        beside the DP table (section \"Calibration and tuning\"); --quick: a\n"
       "                                        rough profile in seconds\n",
       run_calibrate},
      {"tune",
       "kriek tune SPEC [--top K] [synth flags]\n"
       "                                        compile, verify and time the K (default 8) best Impls by the cost\n"
       "                                        model, and record the fastest in the DP table's directory: query, run\n"
       "                                        and library then use it\n",
       run_tune},
      {"repl",
       "kriek repl [--target T] [--memory ...] [--backend llvm|c]\n"
       "                                        schedule by hand, the DP completing holes within the memory limits;\n"
       "                                        `run` compiles with the backend\n",
       run_repl_command},
      {"script",
       "kriek script FILE [--target T] [--memory ...] [--backend llvm|c]\n"
       "                                        replay a REPL session; stops at the first failing line\n",
       run_script},
  };
  return all;
}

namespace {

constexpr std::string_view kHelpAndVersion =
"kriek --help | --version                this list (kriek COMMAND --help: that command's entry); the version\n";

void print_help() {
  std::cout << "kriek " << KRIEK_VERSION << ": a schedule synthesizer for tensor kernels\n\n";
  for (const Command& c : commands()) std::cout << c.help;
  std::cout << kHelpAndVersion << "\nSpecs are written in the spec text of README.md, e.g. 'matmul 128x256x64 f32'.\n";
}

bool asks_for_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
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
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (asks_for_help(rest)) {
      std::cout << c.help;
      return 0;
    }
    try {
      return c.run(rest);
    } catch (const kriek::UserError& e) {
      std::cerr << "kriek: error: " << e.what() << "\n";
      return 1;
    } catch (const std::filesystem::filesystem_error& e) {
      // A path the user gave (or the environment) that cannot be made, read or written: the OS's one line.
      std::cerr << "kriek: error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "kriek: error: unknown subcommand '" << args[0] << "' (see kriek --help)\n";
  return 1;
}
