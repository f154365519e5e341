// Export of the subproblem dependency graph of a solved Spec as GraphViz, through Boost.Graph.
#include <map>
#include <ostream>
#include <sstream>

// Boost.Graph's edge iterators trip GCC 12's -Wmaybe-uninitialized inside Boost's own headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>

#include "synth/synthesizer.h"

namespace kriek {

void Synthesizer::write_graphviz(std::ostream& out, const Spec& root) const {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS,
                                      boost::property<boost::vertex_name_t, std::string>>;
  Graph g;
  // Keyed by memo entry: Specs with one canonical form are one vertex.
  std::map<const Slot*, Graph::vertex_descriptor> index;
  std::vector<std::pair<Spec, const Slot*>> work;
  auto vertex = [&](const Spec& s) {
    const Slot* slot = find_slot(s);
    auto it = index.find(slot);
    if (it != index.end()) return std::pair{it->second, false};
    std::ostringstream label;
    label << s;
    auto v = boost::add_vertex(label.str(), g);
    index.emplace(slot, v);
    work.emplace_back(s, slot);
    return std::pair{v, true};
  };
  if (!solved(root)) return;
  vertex(root);
  while (!work.empty()) {
    auto [spec, slot] = work.back();
    work.pop_back();
    const auto from = index.at(slot);
    const Frontier f = *find(spec);
    for (const FrontierEntry& e : f.entries) {
      ApplyResult applied = apply(e.action, spec, target_);
      const auto* node = std::get_if<ImplPtr>(&applied);
      if (!node) continue;
      for (const auto& c : (*node)->children) {
        if (!solved(c->spec)) continue;
        boost::add_edge(from, vertex(c->spec).first, g);
      }
    }
  }
  boost::write_graphviz(out, g, boost::make_label_writer(boost::get(boost::vertex_name, g)));
}

}  // namespace kriek
#pragma GCC diagnostic pop
