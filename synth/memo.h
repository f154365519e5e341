// The DP's memo as synthesizer.cpp uses it, apart from the search itself: a memo entry (Slot), the Job that solves
// one Spec, and the memo (the map of entries, the spill file under a memory budget, the task arena, the Jobs kept
// for reuse). Private to synth/: included by synthesizer.cpp only.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "cache/packed_frontier.h"
#include "synth/bound.h"
#include "synth/spec_map.h"
#include "synth/spill_file.h"
#include "synth/synthesizer.h"

namespace kriek {

/// A memo entry: idle until some task asks for it, then started (its Job is folding or waiting for children),
/// then done (the frontier is final and readable without the mutex).
struct Synthesizer::Slot {
  // First, on the entry's first line (SpecMap puts a value at the start of a line): what the parents of a done
  // entry read, each time they ask for it (ready), bound an action (the summary) and fold (resident). Nothing on it
  // changes once the entry is done, while the lock and the waiters below do until then.
  /// Set with the frontier, kept when it is spilled (what a parent's bounds read): the elementwise least peak of
  /// its entries (a bound on every entry's peak), its cheapest cost, and its entry count.
  MemoryUse least_peak;
  Cost cheapest = 0;
  /// The frontier without its reference count (`packed`'s), for folds when no memory budget can spill it (then it
  /// lives as long as the memo): a reference taken and dropped per child and fold bounced the count's cache line,
  /// and the atomic shared_ptr's lock, between the cores.
  const PackedFrontier* resident = nullptr;
  std::uint32_t entries = 0;
  std::atomic<bool> ready{false};
  /// Read from the table (or preloaded), not solved here: for_each skips it, so a save writes only new Specs, and
  /// a decision of it that does not rebuild is the table's fault (a UserError), not a bug.
  bool loaded = false;
  enum class State : std::uint8_t { idle, started, done } state = State::idle;
  std::mutex mutex;
  /// Jobs that wait for this entry, one element per request (a Job asking twice is told twice).
  std::vector<Job*> waiters;
  /// Once done: the frontier, packed (the points folds read, the decisions as the table encodes them), or null
  /// when a memory budget spilled it (then at spill_at, spill_bytes of the spill file; frontier_of reads it back).
  std::atomic<std::shared_ptr<const PackedFrontier>> packed;
  std::uint64_t spill_at = 0;
  std::uint64_t spill_bytes = 0;

  /// Sets the frontier and what is kept of it when spilled (before the entry is made done).
  void set(PackedFrontier frontier) {
    entries = static_cast<std::uint32_t>(frontier.size());
    cheapest = frontier.empty() ? 0 : frontier.points().front().cost;
    least_peak = kriek::least_peak(frontier.points());
    auto p = std::make_shared<const PackedFrontier>(std::move(frontier));
    resident = p.get();
    packed.store(std::move(p), std::memory_order_release);
  }
};

/// A Spec being solved: its actions, what each costs itself, and the memo entries of each one's children. It
/// asks for every child first and folds once the last of them is done (`remaining` counts the missing ones plus
/// a guard held while asking), so no task ever blocks waiting for another.
struct Synthesizer::Job {
  Slot* slot = nullptr;
  const Spec* spec = nullptr;  ///< the memo's key of `slot`
  /// In sparse mode, the anchor the Job waits for before it knows its actions (synth/sparse.h); null after.
  const Spec* anchor = nullptr;
  Slot* anchor_slot = nullptr;
  /// Its actions are sparse_actions' (few of its tilings), not all of enumerate_actions': if none of them fits, it
  /// is searched again with all.
  bool transplanted = false;
  std::vector<Action> actions;
  std::vector<NodeCost> costs;
  /// The memo entries of every action's children, action after action: action a's are [first[a], first[a + 1]).
  /// One list for all (a list per action was a heap block per action). An action whose own buffers exceed a
  /// capacity asks for none and makes no candidates.
  std::vector<Slot*> children;
  std::vector<std::uint32_t> first;
  std::span<Slot* const> children_of(std::size_t a) const {
    return {children.data() + first[a], children.data() + first[a + 1]};
  }
  std::atomic<std::int64_t> remaining{1};

  /// As new, its vectors' capacity kept (Memo::give_back).
  void reset() {
    slot = nullptr;
    spec = nullptr;
    anchor = nullptr;
    anchor_slot = nullptr;
    transplanted = false;
    actions.clear();
    costs.clear();
    children.clear();
    first.clear();
    remaining.store(1, std::memory_order_relaxed);
  }
};

struct Synthesizer::Memo {
  SpecMap<Slot> map;
  /// Under a memory budget: the spilled frontiers, the lock of the sweep that spills them, and the entries done
  /// since the last sweep (each sweep spills only those, so sweeping costs O(Specs solved) in all).
  std::unique_ptr<SpillFile> spill;
  std::mutex sweeping;
  std::mutex fresh_mutex;
  std::vector<Slot*> fresh;
  std::unique_ptr<tbb::task_arena> arena;
  /// The group of the running solve(): every Job task is spawned into it, and solve() waits for it.
  tbb::task_group* group = nullptr;
  /// The Spec the running solve() asked for: a sparse search solves it exhaustively.
  const Spec* root = nullptr;
  /// SynthOptions::sparse, for this solve(): its root does enough work (SparseGrid::min_flops).
  bool sparse = false;
  std::mutex solving;  ///< one solve() at a time
  /// Finished Jobs kept by the thread that finished them, their vectors' capacity with them, for the next Specs it
  /// begins. A Job used to be made by the thread that began its Spec and freed by the one that folded it, often the
  /// other core: every Spec's vectors went back through tbbmalloc's path for blocks of another thread (on 2 threads
  /// twice the profile samples of those frees on 1).
  tbb::enumerable_thread_specific<std::vector<std::unique_ptr<Job>>> spare_jobs;
  /// Jobs a thread keeps at most: enough for its turnover, a bound on the capacity they hold.
  static constexpr std::size_t kSpareJobs = 8;

  std::unique_ptr<Job> take_job() {
    std::vector<std::unique_ptr<Job>>& spare = spare_jobs.local();
    if (spare.empty()) return std::make_unique<Job>();
    std::unique_ptr<Job> job = std::move(spare.back());
    spare.pop_back();
    return job;
  }
  void give_back(std::unique_ptr<Job> job) {
    std::vector<std::unique_ptr<Job>>& spare = spare_jobs.local();
    if (spare.size() == kSpareJobs) return;
    job->reset();
    spare.push_back(std::move(job));
  }
};

}  // namespace kriek
