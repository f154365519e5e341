// The memoizing, TBB-parallel dynamic-programming search. Every Spec is solved once, from the frontiers of the
// subproblems its actions create; each memo entry is computed by exactly one task, and a Spec's fold runs as a
// continuation once its last child is solved, so no thread ever blocks on another (tbb::task_group). Results
// do not depend on the thread count (see frontier.h for the tie order).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "impl/cost.h"
#include "impl/node.h"
#include "cache/frontier.h"
#include "cache/packed_frontier.h"
#include "cache/reconstruct.h"
#include "cache/table.h"
#include "synth/sparse.h"
#include "synth/striped_counter.h"

namespace kriek {

struct SynthOptions {
  /// Worker threads (0: all cores).
  int threads = 0;
  /// Key the memo on canonical Specs (sched/canonical.h). Off only to test the canonicalization rules: then a
  /// search solves every Spec as asked, and `find` and the table see Specs as given.
  bool canonical = true;
  /// Skip folding an action whose bound (its own cost plus each child's cheapest entry, its own memory plus the
  /// children's least peaks) a candidate already folded beats in cost and memory (synth/bound.h). The frontier
  /// is exactly the same either way; off only to test that.
  bool prune = true;
  /// Resident bytes past which solved frontiers leave memory for a temporary spill file, read back when a fold or a
  /// save needs them (0: never). Checked every kBudgetPeriod Specs a thread solves; the frontiers are the same
  /// either way.
  std::int64_t max_memory = 0;
  /// The report's sparse DP on this grid (synth/sparse.h): Specs off the grid are solved from the tilings of a
  /// solved neighbour, not exhaustively. Frontiers are then estimates: faster searches, possibly slower kernels
  /// (bench/sparse.cpp measures both). nullopt: exhaustive.
  std::optional<SparseGrid> sparse = std::nullopt;
  /// Tell every register class apart in every Spec, not only in those with an operand in registers
  /// (impl/memory.h's class_cap): for limits below a register level's capacity, which a frontier that tells
  /// register use apart only by presence cannot answer (matmul 64^3 with VRF=1K: 13x the cost of the plan the
  /// limit allows). Slower; its frontiers are other than a default search's, so a table of its own.
  bool every_class = false;
};

/// Specs one thread solves between two checks of SynthOptions::max_memory.
inline constexpr std::uint64_t kBudgetPeriod = 256;

/// Counters of a search, readable while it runs (for a progress line).
struct SynthStats {
  StripedCounter specs_solved;
  /// Specs whose solving has started (searched or read from the table); started - solved - loaded are pending.
  StripedCounter specs_started;
  StripedCounter actions_tried;
  StripedCounter frontier_entries;
  StripedCounter specs_loaded;
  /// Actions whose children were solved but whose fold a bound showed useless.
  StripedCounter actions_pruned;
  /// Frontiers moved to the spill file to keep within SynthOptions::max_memory.
  StripedCounter specs_spilled;
  /// Specs solved from their sparse anchor's decisions only (SynthOptions::sparse), among specs_solved.
  StripedCounter specs_transplanted;
};

/// One legal action of a Spec and the cheapest Impl it completes to within memory limits.
struct ActionOption {
  Action action;
  /// The cost of the cheapest completion; nullopt when no completion fits the limits.
  std::optional<Cost> cost;
  /// The peak memory that completion needs (its own buffers and its children's).
  MemoryUse peak;
};

class Synthesizer {
 public:
  Synthesizer(Target target, CostModel model, SynthOptions options = {});
  ~Synthesizer();
  Synthesizer(const Synthesizer&) = delete;
  Synthesizer& operator=(const Synthesizer&) = delete;

  /// The Pareto frontier of `spec` within the target's capacities (empty when nothing fits), decoded from the
  /// memo's packed form.
  Frontier solve(const Spec& spec);
  /// The cheapest Impl of `spec` whose peak fits `limits` (0 = unbounded), or nullopt.
  std::optional<ImplPtr> best(const Spec& spec, const MemoryUse& limits);
  /// Rebuilds the Impl of frontier entry `entry` of an already solved `spec` from stored decisions only (the memo,
  /// then the table: cache/reconstruct.h).
  ImplPtr reconstruct(const Spec& spec, std::size_t entry) const;
  /// Every legal action of `spec` (enumerate_actions' order) with its cheapest completion within `limits` (0 =
  /// unbounded level; the target's capacities bound it too), found by the search's own fold over the children's
  /// frontiers, which it solves first. The cheapest option costs what best(spec, limits) costs whenever the
  /// limits are powers of two (frontiers compare memory by power-of-two classes); never more.
  std::vector<ActionOption> action_options(const Spec& spec, const MemoryUse& limits);
  /// The frontier of `spec` if it was solved (or preloaded), else nullopt. Never searches.
  std::optional<Frontier> find(const Spec& spec) const;
  /// True when `spec` was solved (or preloaded).
  bool solved(const Spec& spec) const;
  /// Consults `table` (nullptr: none) before computing any Spec, and when reconstructing a child that is not in
  /// memory, so a Spec already in the table costs one lookup and no search. The table must outlive the searches
  /// and be built for this target and cost model (UserError naming the difference otherwise).
  void set_table(const Table* table);
  /// Adds a solved frontier (e.g. from a table on disk); its children must be preloaded or solvable.
  void preload(const Spec& spec, Frontier frontier);
  /// Calls `f` for every Spec this Synthesizer solved by search (in no particular order): not those read from the
  /// table or preloaded, so that saving them writes only what is new.
  void for_each(const std::function<void(const Spec&, const Frontier&)>& f) const;
  /// The same with each frontier as the memo keeps it (its bytes are cache/format.h's): what a save writes, without
  /// decoding and encoding again, or copying.
  void for_each_encoded(const std::function<void(const Spec&, const std::shared_ptr<const PackedFrontier>&)>& f) const;
  /// Writes the dependency graph of `root`'s chosen entries' subproblems as GraphViz (Boost.Graph).
  void write_graphviz(std::ostream& out, const Spec& root) const;

  const SynthStats& stats() const { return stats_; }
  const Target& target() const { return target_; }
  const CostModel& model() const { return model_; }
  const SynthOptions& options() const { return options_; }
  int threads() const;

 private:
  struct Slot;
  struct Job;
  struct Memo;
  /// The memory classes `spec`'s frontier tells apart: class_cap's, or every class (SynthOptions::every_class).
  std::uint64_t classes_of(const Spec& spec) const { return options_.every_class ? kEveryClass : class_cap(spec); }
  /// The memo entry of `spec`'s canonical form (made idle when new), with the map's stable copy of the key.
  std::pair<const Spec*, Slot*> entry(const Spec& spec);
  /// The done memo entry of `spec`'s canonical form, or nullptr.
  const Slot* find_slot(const Spec& spec) const;
  /// Asks for entry `s` of Spec `key` on behalf of `parent` (nullptr: the root): true when it is done already;
  /// otherwise `parent` is told when it is (and the first asker starts it).
  bool request(const Spec* key, Slot& s, Job* parent);
  /// Solves `spec` and returns its done memo entry.
  const Slot& solve_slot(const Spec& spec);
  /// Starts solving: the table's answer, or the Job that asks for every child (in sparse mode off the grid, first
  /// for the anchor).
  void begin(const Spec& spec, Slot& s);
  /// Expands the Job's actions (set by the caller) and asks for every child; the last one done folds.
  void search(Job* job);
  /// Asks for each of `asks` (memo key and entry) on behalf of `job` (which it then owns): the last one done, or
  /// this call when all are done already, finishes it.
  void await(Job* job, std::span<const std::pair<const Spec*, Slot*>> asks);
  /// Folds a Job whose children are all done into its entry's frontier (or, when it waited for its anchor,
  /// searches the anchor's actions).
  void finish(Job* job);
  /// Sets `s`'s frontier, marks it done and starts every waiting Job whose last missing child it was.
  void complete(Slot& s, PackedFrontier frontier);
  /// The frontier of done entry `s`, from memory or read back from the spill file.
  std::shared_ptr<const PackedFrontier> frontier_of(const Slot& s) const;
  /// Past max_memory resident bytes, spills every done frontier in memory (one thread at a time).
  void keep_budget();

  Target target_;
  CostModel model_;
  SynthOptions options_;
  MemoryUse capacity_;
  std::unique_ptr<Memo> memo_;
  SynthStats stats_;
  const Table* table_ = nullptr;
};

}  // namespace kriek
