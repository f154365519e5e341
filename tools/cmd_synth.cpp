// `kriek synth SPEC`: runs the DP, prints the chosen Impl with the cost of every node (Figure 4's column), the
// frontier on request, and the search statistics.
#include <fstream>
#include <iostream>

#include "impl/printer.h"
#include "spec/error.h"
#include "tools/command.h"
#include "tools/synthesis.h"

namespace kriek::tools {

int run_synth(const std::vector<std::string>& raw) {
  std::vector<std::string_view> valued = kSynthValued, switches = kSynthSwitches;
  valued.push_back("--graph");
  switches.push_back("--frontier");
  const Args args = parse_args(raw, valued, switches);
  if (args.positional.size() != 1) user_error("usage: kriek synth SPEC [--target T] [--memory L1=32K,...] ...");
  Synthesis s = synthesize(args.positional[0], args);
  const Target& target = s.target();
  PrintOptions options;
  options.annotate = [&](const ImplNode& n) {
    const ImplCost c = evaluate(std::shared_ptr<const ImplNode>(std::shared_ptr<const ImplNode>{}, &n), target,
                                s.synth->model());
    return std::to_string(c.cost);
  };
  std::cout << print_impl(s.impl, options);
  const ImplCost total = evaluate(s.impl, target, s.synth->model());
  std::cout << "\ncost " << total.cost << " (1/16 cycles, ~" << total.cost / 16 << " cycles), peak " << total.peak
            << "\n";
  if (s.tuned) std::cout << s.tuned_line() << "\n";
  if (args.has("--frontier")) {
    std::cout << "\nfrontier (" << s.frontier.entries.size() << " entries):\n";
    for (const FrontierEntry& e : s.frontier.entries) {
      std::cout << "  cost " << e.cost << "  peak " << e.peak << "  " << action_text(e.action) << "\n";
    }
  }
  if (const std::string saved = s.save_table(); !saved.empty()) std::cout << "\n" << saved << "\n";
  if (const auto* g = args.get("--graph")) {
    std::ofstream out(*g);
    if (!out) user_error("cannot write the graph to '", *g, "'");
    s.synth->write_graphviz(out, s.spec);
  }
  std::cout << "\n" << s.stats_line() << "\n";
  return 0;
}

}  // namespace kriek::tools
