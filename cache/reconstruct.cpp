// Rebuilding an Impl from stored decisions (see reconstruct.h).
#include "cache/reconstruct.h"

#include <sstream>

#include "spec/error.h"

namespace kriek {
namespace {

/// A decision that does not rebuild: the table's fault when it came from `table`, else ours.
template <class... Args>
[[noreturn]] void bad_decision(const Table* table, const Args&... what) {
  std::ostringstream out;
  (out << ... << what);
  KRIEK_ASSERT(table != nullptr, "a decision of this search does not rebuild: ", out.str());
  user_error(out.str(), ": the DP table ", table->path().string(), " is damaged or stale; delete it and rebuild it");
}

ImplPtr rebuild(const Spec& spec, std::size_t entry, const StoredFrontier& stored, const Target& target,
                const FrontierLookup& lookup) {
  const Frontier& f = *stored.get();
  if (entry >= f.entries.size()) {
    bad_decision(stored.table, "the frontier of ", spec, " has ", f.entries.size(), " entries, not entry ", entry);
  }
  const FrontierEntry& e = f.entries[entry];
  ApplyResult applied = apply(e.action, spec, target);
  if (const auto* na = std::get_if<NotApplicable>(&applied)) {
    bad_decision(stored.table, "the stored decision ", action_text(e.action), " for ", spec, " no longer applies (",
                 na->reason, ")");
  }
  const ImplPtr& node = std::get<ImplPtr>(applied);
  if (e.children.size() != node->children.size()) {
    bad_decision(stored.table, "the stored decision for ", spec, " has ", e.children.size(),
                 " children but its action makes ", node->children.size());
  }
  if (e.children.empty()) return node;
  std::vector<ImplPtr> children;
  for (std::size_t i = 0; i < e.children.size(); ++i) {
    const Spec& child = node->children[i]->spec;
    const StoredFrontier c = lookup(child);
    if (!c.get()) bad_decision(stored.table, "no frontier for ", child, ", a subproblem of ", spec);
    children.push_back(rebuild(child, e.children[i], c, target, lookup));
  }
  return with_children(*node, std::move(children));
}

}  // namespace

ImplPtr reconstruct(const Spec& spec, std::size_t entry, const Target& target, const FrontierLookup& lookup) {
  const StoredFrontier root = lookup(spec);
  KRIEK_ASSERT(root.get() != nullptr, "reconstruct of a Spec that was never solved: ", spec);
  return rebuild(spec, entry, root, target, lookup);
}

FrontierLookup table_lookup(const Table& table) {
  return [&table](const Spec& spec) {
    StoredFrontier s;
    s.read = table.lookup(spec);
    s.table = &table;
    return s;
  };
}

}  // namespace kriek
