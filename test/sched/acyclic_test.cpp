// The DP needs a well-founded Spec graph: no Spec may reach itself through the subproblems of enumerated actions
// (a cycle would make a memoized search wait on itself). Checked by depth-first search over every Spec reachable
// from small Specs of each kind.
#include <catch2/catch.hpp>

#include <iostream>
#include <unordered_map>

#include "helpers.h"

using namespace kriek;
using namespace kriek::sched_test;

namespace {

enum class Mark { open, done };

/// Depth-first search from `root`; returns a cycle's description or an empty string. Counts visited Specs.
std::string find_cycle(const Spec& root, const Target& target, std::size_t& visited) {
  std::unordered_map<Spec, Mark, SpecHash> marks;
  struct Frame {
    Spec spec;
    std::vector<Spec> children;
    std::size_t next = 0;
  };
  auto expand = [&](const Spec& s) {
    std::vector<Spec> out;
    for (const Action& a : enumerate_actions(s, target)) {
      const ImplPtr node = std::get<ImplPtr>(apply(a, s, target));
      for (const auto* h : holes(node)) out.push_back(h->spec);
    }
    return out;
  };
  std::vector<Frame> stack;
  stack.push_back({root, expand(root)});
  marks[root] = Mark::open;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.children.size()) {
      marks[f.spec] = Mark::done;
      stack.pop_back();
      continue;
    }
    Spec child = f.children[f.next++];
    auto it = marks.find(child);
    if (it != marks.end()) {
      if (it->second == Mark::open) return text(child) + " reaches itself";
      continue;
    }
    marks[child] = Mark::open;
    auto grandchildren = expand(child);
    stack.push_back({std::move(child), std::move(grandchildren)});
  }
  visited += marks.size();
  return "";
}

void check_acyclic(const std::vector<Spec>& roots) {
  std::size_t visited = 0;
  for (const Spec& s : roots) {
    INFO("root " << text(s));
    const std::size_t before = visited;
    CHECK(find_cycle(s, avx512(), visited).empty());
    std::cout << "  acyclic from " << text(s) << ": " << visited - before << " Specs\n";
  }
}

TensorSpec strided_col() {
  TensorSpec t = ts({2, 2}, Level::L2, Layout::col_major());
  t.contiguous = false;
  return t;
}

}  // namespace

TEST_CASE("no Spec reaches itself through enumerated actions", "[sched][enumerate]") {
  check_acyclic({
      matmul({1, 2}, {2, 16}),
      conv({2, 2, 1}, {2, 1, 1, 2}),
      move_spec(strided_col(), ts({2, 2}, Level::L1, Layout::blocked(1, 2))),
      move_spec(ts({2, 16}), ts({2, 16}, Level::L1)),
      binary(BinaryOp::add, {2, 3}, {1, 3}),
      reducesum({3, 2}, 0),
      compose({Matmul{}, Unary{}}, {{1, 2}, {2, 2}}),
  });
}

TEST_CASE("no Spec reaches itself, larger roots", "[sched][enumerate][.slow]") {
  check_acyclic({
      matmul({2, 3}, {3, 2}),
      conv({3, 3, 2}, {2, 2, 2, 2}),
      relu({2, 16}),
      compose({Matmul{}, Unary{}}, {{2, 2}, {2, 2}}),
  });
}
