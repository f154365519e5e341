// The shared search of the synthesizing commands (see synthesis.h), with its progress line on a terminal.
#include "tools/synthesis.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cache/compaction.h"
#include "cache/table_dir.h"
#include "cache/table_files.h"
#include "cache/table_tools.h"
#include "codegen/emit_llvm.h"
#include "spec/stable_hash.h"
#include "synth/alternatives.h"
#include "spec/error.h"
#include "spec/host_memory.h"
#include "spec/text.h"
#include "tools/progress_line.h"

namespace kriek::tools {
namespace {

/// The search's progress line (progress_line.h): Specs solved, the rate over the last second or so, Specs pending
/// (started, not yet solved: a floor on what remains, since solving them discovers more), resident memory, elapsed
/// time, and the time the pending ones take at the current rate.
std::function<std::string()> search_progress(const Synthesizer& synth) {
  struct State {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last_time = start;
    double rate = 0;  // Specs per second, smoothed
    std::uint64_t last = 0;
  };
  return [&synth, state = std::make_shared<State>()] {
    State& st = *state;
    const SynthStats& stats = synth.stats();
    const std::uint64_t solved = stats.specs_solved.load(), done = solved + stats.specs_loaded.load();
    const std::uint64_t started = stats.specs_started.load();
    const std::uint64_t pending = started > done ? started - done : 0;
    const auto now = std::chrono::steady_clock::now();
    const double step = static_cast<double>(solved - st.last) /
                        std::max(1e-3, std::chrono::duration<double>(now - st.last_time).count());
    st.rate = st.last == 0 ? step : 0.5 * st.rate + 0.5 * step;
    st.last = solved;
    st.last_time = now;
    std::ostringstream out;
    out << "synth: " << solved << " specs (" << static_cast<std::uint64_t>(st.rate) << "/s), " << pending
        << " pending, RSS " << current_rss_bytes() / (1024 * 1024) << " MiB, " << std::fixed << std::setprecision(1)
        << std::chrono::duration<double>(now - st.start).count() << " s";
    if (st.rate > 0) out << ", at least " << static_cast<double>(pending) / st.rate << " s left";
    return out.str();
  };
}

std::string gib(std::int64_t bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1024.0 * 1024 * 1024) << " GiB";
  return out.str();
}

/// The table beside `table` that a search of another kind keeps: NAME.VARIANT.EXT.
std::filesystem::path variant_table_path(const std::filesystem::path& table, const std::string& variant) {
  const std::filesystem::path t = table.has_filename() ? table : table.parent_path();  // "dir/" names "dir"
  return t.parent_path() / (t.stem().string() + "." + variant + t.extension().string());
}

}  // namespace

ImplPtr rebuild_tuned(const Spec& spec, const TunedRecord& tuned, const ImplPtr& pick, const Target& target,
                      const FrontierLookup& lookup, const Table& table) {
  ImplPtr impl;
  try {
    impl = reconstruct_decision(spec, tuned.decision, target, lookup, &table);
  } catch (const UserError& e) {
    std::cerr << "kriek: note: the tuned choice no longer rebuilds (" << e.what()
              << "); the cheapest predicted is used (kriek tune again)\n";
    return nullptr;
  }
  if (codegen::code_hash({impl, pick}, target) != tuned.code) {
    std::cerr << "kriek: note: the tuned choice was timed as other code than this kriek emits; the cheapest "
                 "predicted is used (kriek tune again)\n";
    return nullptr;
  }
  return impl;
}

std::filesystem::path search_table_path(const std::filesystem::path& table, const SynthOptions& options) {
  const std::filesystem::path p =
      options.sparse ? variant_table_path(table, "sparse" + std::to_string(SparseGrid::kRulesVersion)) : table;
  return options.every_class ? variant_table_path(p, "registers") : p;
}

bool cuts_registers(const MemoryUse& limits, const Target& target) {
  const MemoryUse capacity = capacities(target);
  for (Level l : kAllLevels) {
    if (is_register_level(l) && limits[l] > 0 && limits[l] < capacity[l]) return true;
  }
  return false;
}

void refuse_beyond_memory(const Spec& spec) {
  std::int64_t needed = 0;
  for (const TensorSpec& t : spec.operands) needed += t.bytes();
  const std::int64_t available = physical_memory_bytes();
  if (available > 0 && needed > available) {
    user_error("the operands of ", spec_text(spec), " need ", needed, " bytes (", gib(needed),
               ") but this machine has ", available, " bytes (", gib(available), ")");
  }
}

Synthesis synthesize(const std::string& text, const Args& args) {
  Synthesis s;
  const Target target = command_target(args);
  s.spec = parse_spec(text, target);
  refuse_beyond_memory(s.spec);
  s.limits = command_limits(args, target);
  const SynthOptions options{.threads = positive_flag(args, "--threads", 0),
                             .max_memory = static_cast<std::int64_t>(size_flag(args, "--max-memory", 0)),
                             .sparse = args.has("--sparse") ? std::optional<SparseGrid>(SparseGrid{}) : std::nullopt,
                             .every_class = cuts_registers(s.limits, target)};
  s.synth = std::make_unique<Synthesizer>(target, CostModel::for_target(target), options);
  // The DP table: read first (a solved Spec needs no search), written back with everything solved here.
  if (args.has("--table") && args.has("--no-table")) user_error("--table and --no-table exclude each other");
  if (!args.has("--no-table")) {
    if (const auto* path = args.get("--table")) {
      s.table_path = search_table_path(std::filesystem::path(*path), options);
      s.table = open_table_if_exists(*s.table_path, target, s.synth->model());
    } else {
      s.table_path = search_table_path(default_table_path(target), options);
      s.default_table = true;
      std::string note;
      s.table = open_default_table(*s.table_path, target, s.synth->model(), s.replace_table, note);
      if (!note.empty()) std::cerr << "kriek: note: " << note << "\n";
    }
  }
  if (s.table) s.synth->set_table(&*s.table);
  const auto start = std::chrono::steady_clock::now();
  try {
    ProgressLine progress(search_progress(*s.synth));
    s.frontier = s.synth->solve(s.spec);
  } catch (const TableError& e) {
    // A damaged page found mid-search: the default table is a cache, so it is set aside and the search redone.
    if (!s.default_table || e.kind != TableError::Kind::corrupted) throw;
    std::cerr << "kriek: note: the default DP table was unusable (" << e.what() << "); it was moved to "
              << set_aside(*s.table_path).string() << " and a new one is built\n";
    s.synth = std::make_unique<Synthesizer>(target, CostModel::for_target(target), options);
    s.table.reset();
    ProgressLine progress(search_progress(*s.synth));
    s.frontier = s.synth->solve(s.spec);
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::ptrdiff_t best = s.frontier.best_within(s.limits);
  if (s.frontier.empty()) {
    user_error("no Impl of ", spec_text(s.spec), " exists on ", target.name, " at any memory limit");
  }
  if (best < 0) {
    user_error("no Impl of ", spec_text(s.spec), " fits the memory limits ", s.limits, "; the leanest needs ",
               s.frontier.entries.back().peak);
  }
  s.impl = s.synth->reconstruct(s.spec, static_cast<std::size_t>(best));
  if (s.table_path) {
    s.tuned = find_tuned(*s.table_path, target, s.synth->model(), s.spec, s.limits);
    const Table* table = s.table ? &*s.table : nullptr;
    ImplPtr tuned = s.tuned && table ? rebuild_tuned(s.spec, *s.tuned, s.impl, target,
                                                     synthesizer_lookup(*s.synth, table), *table)
                                     : nullptr;
    if (tuned) s.impl = tuned;
    else s.tuned.reset();
  }
  return s;
}

std::string Synthesis::save_table() {
  if (!table_path) return "";
  const auto encoded = [&](const FrontierVisitor& v) { synth->for_each_encoded(v); };
  const WriteSummary w =
      kriek::save_table(*table_path, target(), synth->model(), encoded, !replace_table, table ? &*table : nullptr);
  note_root_use(*table_path, stable_hash(table_key(spec)));
  std::ostringstream out;
  out << "table: " << table_path->string() << " (" << synth->stats().specs_loaded << " Specs read, " << w.entries
      << " solved and saved, " << w.bytes << " bytes written)";
  // The default table is a cache of bounded size: past its limit, the least recently used roots go.
  if (default_table && Table::open(*table_path).file_bytes() > default_table_max_bytes()) {
    const GcSummary gc = gc_table(*table_path, default_table_max_bytes() / 4 * 3, target(), synth->model());
    out << "; gc kept " << gc.entries_after << " of " << gc.entries_before << " Specs";
  }
  return out.str();
}

std::string Synthesis::tuned_line() const {
  if (!tuned) return "";
  std::ostringstream out;
  out << std::setprecision(3) << "tuned: the fastest measured by kriek tune, " << tuned->seconds * 1e6
      << " us per call against " << tuned->pick_seconds * 1e6 << " us for the cheapest predicted (predicted cost "
      << tuned->decision.cost << ")";
  return out.str();
}

std::string Synthesis::stats_line() const {
  std::ostringstream out;
  out << "search: " << synth->stats().specs_solved << " specs solved, " << synth->stats().actions_tried
      << " actions tried, " << std::fixed << std::setprecision(2) << seconds << " s, " << synth->threads()
      << " threads, peak RSS " << peak_rss_bytes() / (1024 * 1024) << " MiB";
  if (const std::uint64_t spilled = synth->stats().specs_spilled) out << ", " << spilled << " frontiers spilled";
  if (const auto& grid = synth->options().sparse) {
    if (!grid->applies(spec)) {
      out << ", sparse: exhaustive all the same (fewer than " << static_cast<std::uint64_t>(grid->min_flops)
          << " floating-point operations)";
    } else {
      out << ", sparse: " << synth->stats().specs_transplanted << " of the Specs from a neighbour's decisions";
    }
  }
  return out.str();
}

}  // namespace kriek::tools
