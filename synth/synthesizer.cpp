// The DP: enumerate a Spec's actions, ask for the subproblems each creates (memoized; each solved by one task),
// and once all are solved fold the children's frontiers into candidate entries per action and keep the
// Pareto-optimal ones. Tasks never wait for one another: a Spec's fold is a continuation its last child starts.
#include "synth/synthesizer.h"

#include <algorithm>
#include <mutex>
#include <span>
#include <thread>

#include <oneapi/tbb/task_group.h>

#include "cache/packed_frontier.h"
#include "sched/canonical.h"
#include "spec/host_memory.h"
#include "spec/error.h"
#include "synth/bound.h"
#include "synth/fold.h"
#include "synth/memo.h"
#include "synth/sparse.h"
#include "synth/spill_file.h"

namespace kriek {

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

std::pair<const Spec*, Synthesizer::Slot*> Synthesizer::entry(const Spec& asked) {
  std::optional<Spec> canonical;
  if (options_.canonical) canonical = canonicalized(asked);
  const Spec& spec = canonical ? *canonical : asked;
  auto* node = memo_->map.find_or_insert(spec);
  return {&node->key, &node->value};
}

Frontier Synthesizer::solve(const Spec& spec) { return frontier_of(solve_slot(spec))->unpack(); }

const Synthesizer::Slot& Synthesizer::solve_slot(const Spec& spec) {
  const auto [key, slot] = entry(spec);
  if (slot->ready.load(std::memory_order_acquire)) return *slot;
  std::lock_guard lock(memo_->solving);
  memo_->arena->execute([&, key = key, slot = slot] {
    tbb::task_group group;
    memo_->group = &group;
    memo_->root = key;
    memo_->sparse = options_.sparse && options_.sparse->applies(*key);
    request(key, *slot, nullptr);
    group.wait();
    memo_->group = nullptr;
  });
  KRIEK_ASSERT(slot->ready.load(std::memory_order_acquire), "the search ended before its root was solved");
  return *slot;
}

bool Synthesizer::request(const Spec* key, Slot& s, Job* parent) {
  if (s.ready.load(std::memory_order_acquire)) return true;
  bool start = false;
  {
    std::lock_guard lock(s.mutex);
    if (s.state == Slot::State::done) return true;
    if (parent) s.waiters.push_back(parent);
    if (s.state == Slot::State::idle) {
      s.state = Slot::State::started;
      start = true;
    }
  }
  if (start) {
    stats_.specs_started.fetch_add(1, std::memory_order_relaxed);
    memo_->group->run([this, key, &s] { begin(*key, s); });
  }
  return false;
}

void Synthesizer::begin(const Spec& spec, Slot& s) {
  if (table_) {
    if (const std::optional<std::string> record = table_->find_record(spec)) {
      s.loaded = true;
      stats_.specs_loaded.fetch_add(1, std::memory_order_relaxed);
      complete(s, PackedFrontier::from_bytes(record_frontier_bytes(*record)));
      return;
    }
  }
  std::unique_ptr<Job> job = memo_->take_job();
  job->slot = &s;
  job->spec = &spec;
  if (memo_->sparse && &spec != memo_->root) {
    if (const std::optional<Spec> anchor = sparse_anchor(spec, *options_.sparse, target_)) {
      const auto e = entry(*anchor);
      std::tie(job->anchor, job->anchor_slot) = e;
      await(job.release(), {&e, 1});
      return;
    }
  }
  enumerate_actions(spec, target_, job->actions);
  search(job.release());
}

void Synthesizer::search(Job* j) {
  const Spec& spec = *j->spec;
  // Counted once per Spec: a shared counter bumped per action bounces its cache line between the cores.
  stats_.actions_tried.fetch_add(j->actions.size(), std::memory_order_relaxed);
  j->costs.assign(j->actions.size(), NodeCost{});
  j->children.clear();
  j->children.reserve(2 * j->actions.size());
  j->first.assign(1, 0);
  j->first.reserve(j->actions.size() + 1);
  std::vector<std::pair<const Spec*, Slot*>> asks;
  asks.reserve(2 * j->actions.size());
  for (std::size_t a = 0; a < j->actions.size(); ++a) {
    const Action& action = j->actions[a];
    ExpandResult expanded = a == 0 ? expand(action, spec, target_) : expand_valid(action, spec, target_);
    const auto* ex = std::get_if<Expansion>(&expanded);
    KRIEK_ASSERT(ex, "enumerated action ", action_text(action), " does not apply: ",
                 std::get<NotApplicable>(expanded).reason);
    j->costs[a] = node_cost(spec, ex->kind, ex->children, target_, model_);
    if (j->costs[a].own.fits(capacity_)) {
      for (const Spec& c : ex->children) {
        const auto e = entry(c);
        j->children.push_back(e.second);
        asks.push_back(e);
      }
    }
    j->first.push_back(static_cast<std::uint32_t>(j->children.size()));
  }
  await(j, asks);
}

void Synthesizer::await(Job* j, std::span<const std::pair<const Spec*, Slot*>> asks) {
  // The guard: no child done meanwhile finishes the Job before every ask is made.
  j->remaining.store(1, std::memory_order_relaxed);
  for (const auto& [key, child] : asks) {
    j->remaining.fetch_add(1, std::memory_order_relaxed);
    if (request(key, *child, j)) j->remaining.fetch_sub(1, std::memory_order_relaxed);
  }
  if (j->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) finish(j);
}

void Synthesizer::finish(Job* j) {
  if (j->anchor) {
    // The anchor is solved: this Spec tries sparse_actions (every action when none of those applies).
    std::vector<Action> actions = sparse_actions(frontier_of(*j->anchor_slot)->unpack(), *j->anchor, *j->spec,
                                                  *options_.sparse, target_);
    j->transplanted = !actions.empty();
    if (actions.empty()) {
      enumerate_actions(*j->spec, target_, j->actions);
    } else {
      j->actions = std::move(actions);
    }
    j->anchor = nullptr;
    search(j);
    return;
  }
  std::unique_ptr<Job> job(j);
  // One set per thread, reused Spec after Spec while its buffers are warm in this core's caches (a finish below
  // that begins another Spec's finish does so once it is done with these).
  thread_local std::vector<Folded> folded;
  if (folded.size() < job->actions.size()) folded.resize(job->actions.size());
  for (std::size_t a = 0; a < job->actions.size(); ++a) folded[a].used = 0;
  std::vector<std::span<const FrontierPoint>> child;
  std::vector<MemoryUse> least;
  // Actions in the order of their bounds (cheapest first), each folded unless the candidates folded before it
  // already beat everything it can make (bound.h).
  std::vector<ActionBound> order;
  order.reserve(job->actions.size());
  for (std::size_t a = 0; a < job->actions.size(); ++a) {
    folded[a].nc = std::move(job->costs[a]);
    if (!folded[a].nc.own.fits(capacity_)) continue;
    ActionBound b{folded[a].nc.base, folded[a].nc.own, static_cast<std::uint32_t>(a)};
    MemoryUse children_least;
    bool solvable = true;
    const std::span<Slot* const> kids = job->children_of(a);
    for (std::size_t i = 0; i < kids.size() && solvable; ++i) {
      const Slot& c = *kids[i];
      solvable = c.entries > 0;
      if (solvable) {
        b.cost += folded[a].nc.weights[i] * c.cheapest;
        children_least = children_least.max(c.least_peak);
      }
    }
    b.peak = b.peak.plus(children_least);
    if (solvable && b.peak.fits(capacity_)) order.push_back(b);
  }
  if (options_.prune) sort_bounds(order);
  const std::uint64_t cap = classes_of(*job->spec);
  CandidateFloor floor(cap);  // the candidates folded so far: the bound of the actions left, at the end the frontier
  std::uint64_t pruned = 0;
  std::vector<std::shared_ptr<const PackedFrontier>> held;  // the children's frontiers while folding
  for (const ActionBound& b : order) {
    if (options_.prune && floor.beats(b)) {
      ++pruned;
      continue;
    }
    child.clear();
    least.clear();
    held.clear();
    for (const Slot* c : job->children_of(b.action)) {
      const PackedFrontier* p = c->resident;
      if (options_.max_memory > 0) p = held.emplace_back(frontier_of(*c)).get();
      child.push_back(p->points());
      least.push_back(c->least_peak);
    }
    Folded& f = folded[b.action];
    fold(child, least, capacity_, cap, options_.prune ? &floor : nullptr, f);
    add_candidates(b.action, f, floor);
  }
  stats_.actions_pruned.fetch_add(pruned, std::memory_order_relaxed);
  Frontier solved;
  select_frontier(job->actions, folded, floor, solved);
  if (solved.empty() && job->transplanted) {
    // Nothing the anchor's tilings make fits here: the Spec is solved exhaustively after all.
    Job* again = job.release();
    again->transplanted = false;
    enumerate_actions(*again->spec, target_, again->actions);
    search(again);
    return;
  }
  if (job->transplanted) stats_.specs_transplanted.fetch_add(1, std::memory_order_relaxed);
  const std::uint64_t count = stats_.specs_solved.fetch_add(1, std::memory_order_relaxed) + 1;
  stats_.frontier_entries.fetch_add(solved.entries.size(), std::memory_order_relaxed);
  complete(*job->slot, PackedFrontier(solved));
  memo_->give_back(std::move(job));
  if (options_.max_memory > 0 && count % kBudgetPeriod == 0) keep_budget();
}

void Synthesizer::complete(Slot& s, PackedFrontier frontier) {
  s.set(std::move(frontier));
  if (options_.max_memory > 0) {
    std::lock_guard lock(memo_->fresh_mutex);
    memo_->fresh.push_back(&s);
  }
  std::vector<Job*> waiters;
  {
    std::lock_guard lock(s.mutex);
    s.state = Slot::State::done;
    s.ready.store(true, std::memory_order_release);
    waiters.swap(s.waiters);
  }
  for (Job* w : waiters) {
    if (w->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) memo_->group->run([this, w] { finish(w); });
  }
}

const Synthesizer::Slot* Synthesizer::find_slot(const Spec& spec) const {
  const auto* node =
      !options_.canonical || is_canonical(spec) ? memo_->map.find(spec) : memo_->map.find(canonical_spec(spec));
  if (!node || !node->value.ready.load(std::memory_order_acquire)) return nullptr;
  return &node->value;
}

std::optional<Frontier> Synthesizer::find(const Spec& spec) const {
  const Slot* s = find_slot(spec);
  if (!s) return std::nullopt;
  return frontier_of(*s)->unpack();
}

std::shared_ptr<const PackedFrontier> Synthesizer::frontier_of(const Slot& s) const {
  if (std::shared_ptr<const PackedFrontier> p = s.packed.load(std::memory_order_acquire)) return p;
  return std::make_shared<const PackedFrontier>(PackedFrontier::unspill(memo_->spill->read(s.spill_at, s.spill_bytes)));
}

void Synthesizer::keep_budget() {
  if (current_rss_bytes() <= options_.max_memory) return;
  std::unique_lock lock(memo_->sweeping, std::try_to_lock);
  if (!lock) return;  // another thread sweeps
  if (!memo_->spill) memo_->spill = std::make_unique<SpillFile>();
  // Every frontier done since the last sweep goes to the spill file (those before went in earlier sweeps, or the
  // process was within its budget then); a fold that holds one keeps it alive until it ends, and later readers
  // read it back (frontier_of). The freed memory is reused by the search, so the resident size stops growing.
  std::vector<Slot*> done;
  {
    std::lock_guard fresh(memo_->fresh_mutex);
    done.swap(memo_->fresh);
  }
  std::string raw;
  for (Slot* s : done) {
    const std::shared_ptr<const PackedFrontier> p = s->packed.load(std::memory_order_acquire);
    if (!p) continue;
    raw.clear();
    p->spill(raw);
    s->spill_at = memo_->spill->append(raw);
    s->spill_bytes = raw.size();
    s->resident = nullptr;  // never read under a budget; not left dangling either
    s->packed.store(nullptr, std::memory_order_release);
    stats_.specs_spilled.fetch_add(1, std::memory_order_relaxed);
  }
}

bool Synthesizer::solved(const Spec& spec) const { return find_slot(spec) != nullptr; }

void Synthesizer::preload(const Spec& spec, Frontier frontier) {
  Slot& s = *entry(spec).second;
  {
    std::lock_guard lock(s.mutex);
    if (s.state != Slot::State::idle) return;
    s.state = Slot::State::started;
  }
  s.loaded = true;
  s.set(PackedFrontier(frontier));
  stats_.specs_loaded.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(s.mutex);
  s.state = Slot::State::done;
  s.ready.store(true, std::memory_order_release);
}

void Synthesizer::for_each(const std::function<void(const Spec&, const Frontier&)>& f) const {
  for_each_encoded([&](const Spec& spec, const std::shared_ptr<const PackedFrontier>& p) { f(spec, p->unpack()); });
}

void Synthesizer::for_each_encoded(
    const std::function<void(const Spec&, const std::shared_ptr<const PackedFrontier>&)>& f) const {
  memo_->map.for_each([&](const auto& node) {
    const Slot& s = node.value;
    if (s.ready.load(std::memory_order_acquire) && !s.loaded) f(node.key, frontier_of(s));
  });
}

std::optional<ImplPtr> Synthesizer::best(const Spec& spec, const MemoryUse& limits) {
  const Frontier f = solve(spec);
  const std::ptrdiff_t i = f.best_within(limits);
  if (i < 0) return std::nullopt;
  return reconstruct(spec, static_cast<std::size_t>(i));
}

std::vector<ActionOption> Synthesizer::action_options(const Spec& spec, const MemoryUse& limits) {
  const MemoryUse bound = capacity_.tightest(limits);
  std::vector<ActionOption> out;
  std::vector<std::span<const FrontierPoint>> child;
  std::vector<MemoryUse> least;
  std::vector<std::shared_ptr<const PackedFrontier>> held;
  for (const Action& a : enumerate_actions(spec, target_)) {
    ExpandResult expanded = expand(a, spec, target_);
    const auto* ex = std::get_if<Expansion>(&expanded);
    KRIEK_ASSERT(ex, "enumerated action ", action_text(a), " does not apply: ", std::get<NotApplicable>(expanded).reason);
    ActionOption& option = out.emplace_back(ActionOption{a, std::nullopt, {}});
    Folded f;
    f.nc = node_cost(spec, ex->kind, ex->children, target_, model_);
    if (!f.nc.own.fits(bound)) continue;
    child.clear();
    least.clear();
    held.clear();
    for (const Spec& c : ex->children) {
      const Slot& solved = solve_slot(c);
      held.push_back(frontier_of(solved));
      child.push_back(held.back()->points());
      least.push_back(solved.least_peak);
    }
    fold(child, least, bound, classes_of(spec), nullptr, f);
    if (f.last().empty()) continue;
    const Partial& cheapest = f.last().front();  // prune() orders the kept partials by cost first
    option.cost = f.nc.base + cheapest.cost;
    option.peak = f.nc.own.plus(cheapest.peak);
  }
  return out;
}

void Synthesizer::set_table(const Table* table) {
  if (table) table->check_compatible(target_, model_);
  table_ = table;
}

ImplPtr Synthesizer::reconstruct(const Spec& spec, std::size_t entry) const {
  return kriek::reconstruct(spec, entry, target_, [this](const Spec& s) {
    StoredFrontier stored;
    if (const Slot* slot = find_slot(s)) {
      stored.read = frontier_of(*slot)->unpack();
      if (slot->loaded) stored.table = table_;
    } else if (table_) {  // a child loaded with its parent's frontier is not in the memo
      stored.read = table_->lookup(s);
      stored.table = table_;
    }
    return stored;
  });
}

}  // namespace kriek
