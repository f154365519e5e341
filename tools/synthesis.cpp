// The shared search of the synthesizing commands (see synthesis.h), with the terminal progress line.
#include "tools/synthesis.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "spec/error.h"
#include "spec/host_memory.h"
#include "spec/text.h"

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

std::string gib(std::int64_t bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1024.0 * 1024 * 1024) << " GiB";
  return out.str();
}

}  // namespace

void refuse_beyond_memory(const Spec& spec) {
  std::int64_t needed = 0;
  for (const TensorSpec& t : spec.operands) needed += t.bytes();
  const std::int64_t available = physical_memory_bytes();
  if (available > 0 && needed > available) {
    user_error("the operands of ", spec_text(spec), " need ", needed, " bytes (", gib(needed), ") but this machine has ",
               available, " bytes (", gib(available), ")");
  }
}

Synthesis synthesize(const std::string& text, const Args& args) {
  Synthesis s;
  const Target target = named_target(args.get("--target") ? *args.get("--target") : "host");
  s.spec = parse_spec(text, target);
  refuse_beyond_memory(s.spec);
  s.limits = capacities(target);
  if (const auto* m = args.get("--memory")) s.limits = parse_memory_limits(*m, s.limits);
  s.synth = std::make_unique<Synthesizer>(target, CostModel::for_target(target),
                                          SynthOptions{positive_flag(args, "--threads", 0)});
  // The DP table: read first (a solved Spec needs no search), written back with everything solved here.
  if (args.has("--table") && args.has("--no-table")) user_error("--table and --no-table exclude each other");
  if (!args.has("--no-table")) {
    if (const auto* path = args.get("--table")) {
      s.table_path = std::filesystem::path(*path);
      s.table = open_table_if_exists(*s.table_path, target, s.synth->model());
    } else {
      s.table_path = default_table_path(target);
      s.table = open_default_table(*s.table_path, target, s.synth->model(), s.replace_table);
      if (s.replace_table) {
        std::cerr << "kriek: note: the default DP table " << s.table_path->string()
                  << " is stale (built by another kriek or for other hardware); it will be replaced\n";
      }
    }
  }
  if (s.table) s.synth->set_table(&*s.table);
  const auto start = std::chrono::steady_clock::now();
  {
    Progress progress(*s.synth);
    s.frontier = &s.synth->solve(s.spec);
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::ptrdiff_t best = s.frontier->best_within(s.limits);
  if (best < 0) {
    std::ostringstream need;
    need << (s.frontier->empty() ? MemoryUse{} : s.frontier->entries.back().peak);
    user_error("no Impl of ", spec_text(s.spec), " fits the memory limits",
               s.frontier->empty() ? "" : "; the leanest needs ", s.frontier->empty() ? "" : need.str());
  }
  s.impl = s.synth->reconstruct(s.spec, static_cast<std::size_t>(best));
  return s;
}

std::string Synthesis::save_table() {
  if (!table_path) return "";
  kriek::save_table(*table_path, target(), synth->model(), [&](const FrontierVisitor& v) { synth->for_each(v); },
                    !replace_table);
  std::ostringstream out;
  out << "table: " << table_path->string() << " (" << synth->stats().specs_loaded << " Specs read, "
      << synth->stats().specs_solved << " solved and saved)";
  return out.str();
}

std::string Synthesis::stats_line() const {
  std::ostringstream out;
  out << "search: " << synth->stats().specs_solved << " specs solved, " << synth->stats().actions_tried
      << " actions tried, " << std::fixed << std::setprecision(2) << seconds << " s, " << synth->threads()
      << " threads, peak RSS " << peak_rss_bytes() / (1024 * 1024) << " MiB";
  return out.str();
}

}  // namespace kriek::tools
