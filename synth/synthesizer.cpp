// The DP: enumerate a Spec's actions, solve the subproblems each creates (in parallel, memoized), fold the
// children's frontiers into candidate entries for the action, and keep the Pareto-optimal ones.
#include "synth/synthesizer.h"

#include <sys/resource.h>

#include <algorithm>
#include <span>
#include <thread>

#include <oneapi/tbb/collaborative_call_once.h>
#include <oneapi/tbb/concurrent_unordered_map.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include "sched/canonical.h"
#include "spec/error.h"

namespace kriek {

struct Synthesizer::Slot {
  tbb::collaborative_once_flag once;
  Frontier frontier;
};

struct Synthesizer::Memo {
  tbb::concurrent_unordered_map<Spec, std::unique_ptr<Slot>, SpecHash> map;
  std::unique_ptr<tbb::task_arena> arena;
};

namespace {

/// A partial combination of child entries while folding an action's children: after child i, entry `entry` of
/// child i's frontier extends partial `prev` of the combinations of children 0..i-1.
struct Partial {
  Cost cost = 0;
  MemoryUse peak;
  std::uint32_t prev = 0;
  std::uint32_t entry = 0;
};

/// Keeps the non-dominated partials, in (cost, peak, generation order) order.
void prune(std::vector<Partial>& ps) {
  pareto_keep(ps, [](const Partial& a, const Partial& b) { return a.cost != b.cost ? a.cost < b.cost : a.peak < b.peak; });
}

/// The partial combinations of one action's children, step by step: steps[i] holds the kept combinations of
/// children 0..i-1 (steps[0]: the empty one), so a final partial names its chosen entries through `prev`.
struct Folded {
  NodeCost nc;
  std::vector<std::vector<Partial>> steps;
};

/// Folds the children's frontiers of one action (cost = base + sum of weight x child cost, peak = own + the
/// children's elementwise maximum), keeping the partial combinations within `capacity` that no other beats.
/// Leaves steps.back() empty when nothing fits.
void fold(std::span<const Frontier* const> child, const MemoryUse& capacity, Folded& f) {
  const NodeCost& nc = f.nc;
  f.steps.assign(child.size() + 1, {});
  f.steps[0].push_back(Partial{});
  for (std::size_t i = 0; i < child.size(); ++i) {
    const std::vector<Partial>& partial = f.steps[i];
    std::vector<Partial>& next = f.steps[i + 1];
    next.reserve(partial.size() * child[i]->entries.size());
    for (std::size_t p = 0; p < partial.size(); ++p) {
      for (std::size_t j = 0; j < child[i]->entries.size(); ++j) {
        const FrontierEntry& e = child[i]->entries[j];
        Partial q{partial[p].cost + nc.weights[i] * e.cost, partial[p].peak.max(e.peak), static_cast<std::uint32_t>(p),
                  static_cast<std::uint32_t>(j)};
        if (!nc.own.plus(q.peak).fits(capacity)) continue;
        next.push_back(q);
      }
    }
    prune(next);
    if (next.empty()) {
      f.steps.back().clear();
      return;
    }
  }
}

/// A finished combination of one action, light enough to filter before any FrontierEntry is built.
struct Candidate {
  Cost cost = 0;
  MemoryUse peak;
  std::uint32_t rank = 0;     ///< the action's index
  std::uint32_t partial = 0;  ///< its index in the action's steps.back()
};

}  // namespace

Synthesizer::Synthesizer(Target target, CostModel model, SynthOptions options)
    : target_(std::move(target)),
      model_(model),
      options_(options),
      capacity_(capacities(target_)),
      memo_(std::make_unique<Memo>()) {
  const int n = options_.threads > 0 ? options_.threads : static_cast<int>(std::thread::hardware_concurrency());
  memo_->arena = std::make_unique<tbb::task_arena>(std::max(1, n));
}

Synthesizer::~Synthesizer() = default;

int Synthesizer::threads() const { return memo_->arena->max_concurrency(); }

Synthesizer::Slot& Synthesizer::slot(const Spec& spec) {
  KRIEK_ASSERT(!options_.canonical || is_canonical(spec), "memo keys are canonical Specs");
  auto it = memo_->map.find(spec);
  if (it != memo_->map.end()) return *it->second;
  return *memo_->map.emplace(spec, std::make_unique<Slot>()).first->second;
}

const Frontier& Synthesizer::solve(const Spec& spec) {
  const Frontier* result = nullptr;
  memo_->arena->execute([&] { result = &solve_in_arena(spec); });
  return *result;
}

const Frontier& Synthesizer::solve_in_arena(const Spec& asked) {
  std::optional<Spec> canonical;
  if (options_.canonical && !is_canonical(asked)) canonical = canonical_spec(asked);
  const Spec& spec = canonical ? *canonical : asked;
  Slot& s = slot(spec);
  tbb::collaborative_call_once(s.once, [&] {
    if (table_) {
      if (std::optional<Frontier> stored = table_->lookup(spec)) {
        s.frontier = std::move(*stored);
        stats_.specs_loaded.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    // Isolated: while waiting for its own subtasks, this thread must not pick up an outer task that needs this
    // very Spec (it would wait on the flag it holds).
    tbb::this_task_arena::isolate([&] { compute(spec, s.frontier); });
    stats_.specs_solved.fetch_add(1, std::memory_order_relaxed);
    stats_.frontier_entries.fetch_add(s.frontier.entries.size(), std::memory_order_relaxed);
  });
  return s.frontier;
}

void Synthesizer::compute(const Spec& spec, Frontier& out) {
  const std::vector<Action> actions = enumerate_actions(spec, target_);
  // Counted once per Spec: a shared counter bumped per action bounces its cache line between the cores.
  stats_.actions_tried.fetch_add(actions.size(), std::memory_order_relaxed);
  std::vector<Folded> folded(actions.size());
  tbb::parallel_for(std::size_t{0}, actions.size(), [&](std::size_t a) {
    ExpandResult expanded = expand(actions[a], spec, target_);
    const auto* ex = std::get_if<Expansion>(&expanded);
    KRIEK_ASSERT(ex, "enumerated action ", action_text(actions[a]), " does not apply: ",
                 std::get<NotApplicable>(expanded).reason);
    Folded& f = folded[a];
    f.nc = node_cost(spec, ex->kind, ex->children, target_, model_);
    if (!f.nc.own.fits(capacity_)) return;

    std::vector<const Frontier*> child(ex->children.size());
    if (child.size() == 1) {
      child[0] = &solve_in_arena(ex->children[0]);
    } else {
      tbb::parallel_for(std::size_t{0}, child.size(),
                        [&](std::size_t i) { child[i] = &solve_in_arena(ex->children[i]); });
    }
    fold(child, capacity_, f);
  });
  // Filter light candidates in the frontier's total order (cost, peak, action rank, then generation order);
  // only the survivors become FrontierEntries.
  std::vector<Candidate> all;
  for (std::size_t a = 0; a < folded.size(); ++a) {
    if (folded[a].steps.empty()) continue;
    const std::vector<Partial>& last = folded[a].steps.back();
    for (std::size_t p = 0; p < last.size(); ++p) {
      all.push_back(Candidate{folded[a].nc.base + last[p].cost, folded[a].nc.own.plus(last[p].peak),
                              static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(p)});
    }
  }
  pareto_keep(all, [](const Candidate& x, const Candidate& y) {
    if (x.cost != y.cost) return x.cost < y.cost;
    if (x.peak != y.peak) return x.peak < y.peak;
    return x.rank < y.rank;
  });
  out.entries.clear();
  out.entries.reserve(all.size());
  for (const Candidate& c : all) {
    const Folded& f = folded[c.rank];
    std::vector<std::uint32_t> choice(f.steps.size() - 1);
    const Partial* at = &f.steps.back()[c.partial];
    for (std::size_t i = choice.size(); i-- > 0;) {
      choice[i] = at->entry;
      at = &f.steps[i][at->prev];
    }
    out.entries.push_back(FrontierEntry{c.cost, c.peak, actions[c.rank], std::move(choice), c.rank});
  }
}

const Frontier* Synthesizer::find(const Spec& spec) const {
  auto it = !options_.canonical || is_canonical(spec) ? memo_->map.find(spec) : memo_->map.find(canonical_spec(spec));
  return it == memo_->map.end() ? nullptr : &it->second->frontier;
}

void Synthesizer::preload(const Spec& spec, Frontier frontier) {
  Slot& s = slot(options_.canonical ? canonical_spec(spec) : spec);
  tbb::collaborative_call_once(s.once, [&] {
    s.frontier = std::move(frontier);
    stats_.specs_loaded.fetch_add(1, std::memory_order_relaxed);
  });
}

void Synthesizer::for_each(const std::function<void(const Spec&, const Frontier&)>& f) const {
  for (const auto& [spec, s] : memo_->map) f(spec, s->frontier);
}

std::optional<ImplPtr> Synthesizer::best(const Spec& spec, const MemoryUse& limits) {
  const Frontier& f = solve(spec);
  const std::ptrdiff_t i = f.best_within(limits);
  if (i < 0) return std::nullopt;
  return reconstruct(spec, static_cast<std::size_t>(i));
}

void Synthesizer::set_table(const Table* table) {
  if (table) table->check_compatible(target_, model_);
  table_ = table;
}

ImplPtr Synthesizer::reconstruct(const Spec& spec, std::size_t entry) const {
  const Frontier* f = find(spec);
  std::optional<Frontier> stored;  // a child loaded with its parent's frontier is not in the memo
  if (!f && table_ && (stored = table_->lookup(spec))) f = &*stored;
  KRIEK_ASSERT(f != nullptr, "reconstruct of a Spec that was never solved");
  KRIEK_ASSERT(entry < f->entries.size(), "entry ", entry, " of a frontier of ", f->entries.size());
  const FrontierEntry& e = f->entries[entry];
  ApplyResult applied = apply(e.action, spec, target_);
  const auto* node = std::get_if<ImplPtr>(&applied);
  KRIEK_ASSERT(node, "stored action ", action_text(e.action), " no longer applies");
  KRIEK_ASSERT(e.children.size() == (*node)->children.size(), "stored decision has ", e.children.size(),
               " children, the action makes ", (*node)->children.size());
  if (e.children.empty()) return *node;
  std::vector<ImplPtr> children;
  for (std::size_t i = 0; i < e.children.size(); ++i) {
    children.push_back(reconstruct((*node)->children[i]->spec, e.children[i]));
  }
  return with_children(**node, std::move(children));
}

std::int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace kriek
