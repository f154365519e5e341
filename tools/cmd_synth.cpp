// `kriek synth SPEC`: runs the DP, prints the chosen Impl with the cost of every node (Figure 4's column), the
// frontier on request, and the search statistics; a progress line shows on a terminal while it runs.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "cache/commands.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "spec/text.h"
#include "synth/synthesizer.h"
#include "tools/command.h"

namespace kriek::tools {
namespace {

/// Prints "synth: N specs, M actions, T s" to stderr every half second while alive, when stderr is a terminal.
class Progress {
 public:
  explicit Progress(const Synthesizer& s) : synth_(s), start_(std::chrono::steady_clock::now()) {
    if (isatty(STDERR_FILENO)) thread_ = std::thread([this] { loop(); });
  }
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
      thread_.join();
      std::cerr << "\r\033[K" << std::flush;
    }
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return done_; })) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      std::cerr << "\rsynth: " << synth_.stats().specs_solved << " specs, " << synth_.stats().actions_tried
                << " actions, " << std::fixed << std::setprecision(1) << s << " s" << std::flush;
    }
  }

  const Synthesizer& synth_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

int run_synth(const std::vector<std::string>& raw) {
  const Args args =
      parse_args(raw, {"--target", "--memory", "--threads", "--graph", "--table"}, {"--frontier", "--no-table"});
  if (args.positional.size() != 1) user_error("usage: kriek synth SPEC [--target T] [--memory L1=32K,...] ...");
  const Target target = named_target(args.get("--target") ? *args.get("--target") : "host");
  const Spec spec = parse_spec(args.positional[0], target);
  MemoryUse limits = capacities(target);
  if (const auto* m = args.get("--memory")) limits = parse_memory_limits(*m, limits);
  int threads = 0;
  if (const auto* t = args.get("--threads")) {
    if (t->empty() || t->size() > 4 || t->find_first_not_of("0123456789") != std::string::npos || std::stoi(*t) < 1) {
      user_error("--threads takes a positive number, got '", *t, "'");
    }
    threads = std::stoi(*t);
  }
  Synthesizer synth(target, CostModel::for_target(target), SynthOptions{threads});
  // The DP table: read first (a solved Spec needs no search), written back with everything solved here.
  std::optional<std::filesystem::path> table_path;
  if (args.has("--table") && args.has("--no-table")) user_error("--table and --no-table exclude each other");
  if (!args.has("--no-table")) table_path = args.get("--table") ? std::filesystem::path(*args.get("--table")) : default_table_path(target);
  std::optional<Table> table;
  if (table_path) table = open_table_if_exists(*table_path, target, synth.model());
  if (table) synth.set_table(&*table);
  const auto start = std::chrono::steady_clock::now();
  const Frontier* frontier = nullptr;
  {
    Progress progress(synth);
    frontier = &synth.solve(spec);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::ptrdiff_t best = frontier->best_within(limits);
  if (best < 0) {
    std::ostringstream need;
    need << (frontier->empty() ? MemoryUse{} : frontier->entries.back().peak);
    user_error("no Impl of ", spec_text(spec), " fits the memory limits", frontier->empty() ? "" : "; the leanest needs ",
               need.str());
  }
  const ImplPtr impl = synth.reconstruct(spec, static_cast<std::size_t>(best));
  PrintOptions options;
  options.annotate = [&](const ImplNode& n) {
    const ImplCost c = evaluate(std::shared_ptr<const ImplNode>(std::shared_ptr<const ImplNode>{}, &n), target,
                                synth.model());
    return std::to_string(c.cost);
  };
  std::cout << print_impl(impl, options);
  const ImplCost total = evaluate(impl, target, synth.model());
  std::cout << "\ncost " << total.cost << " (1/16 cycles, ~" << total.cost / 16 << " cycles), peak " << total.peak
            << "\n";
  if (args.has("--frontier")) {
    std::cout << "\nfrontier (" << frontier->entries.size() << " entries):\n";
    for (const FrontierEntry& e : frontier->entries) {
      std::cout << "  cost " << e.cost << "  peak " << e.peak << "  " << action_text(e.action) << "\n";
    }
  }
  if (table_path) {
    save_table(*table_path, target, synth.model(), [&](const FrontierVisitor& v) { synth.for_each(v); });
    std::cout << "\ntable: " << table_path->string() << " (" << synth.stats().specs_loaded << " Specs read, "
              << synth.stats().specs_solved << " solved and saved)\n";
  }
  if (const auto* g = args.get("--graph")) {
    std::ofstream out(*g);
    if (!out) user_error("cannot write the graph to '", *g, "'");
    synth.write_graphviz(out, spec);
  }
  std::cout << "\nsearch: " << synth.stats().specs_solved << " specs solved, " << synth.stats().actions_tried
            << " actions tried, " << std::fixed << std::setprecision(2) << seconds << " s, " << synth.threads()
            << " threads, peak RSS " << peak_rss_bytes() / (1024 * 1024) << " MiB\n";
  return 0;
}

}  // namespace kriek::tools
