// The printer of Impl trees: a walk that derives operand names from the parent's and collects one line per node,
// then lays out the optional annotation column.
#include "impl/printer.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "impl/taps.h"
#include "spec/conv_geometry.h"
#include "spec/overloaded.h"
#include "spec/text.h"

namespace kriek {
namespace {

std::string op_label(const PrimitiveOp& op) {
  return std::visit(overloaded{[](const Matmul& m) { return std::string("matmul") + (m.accumulate ? "[acc]" : ""); },
                               [](const Conv& c) { return op_text(PrimitiveOp{c}); },
                               [](const ReduceSum& r) {
                                 return "reducesum[axis=" + std::to_string(r.axis) + (r.accumulate ? ", acc]" : "]");
                               },
                               [&](const Move&) { return std::string(op_word(op)); },
                               [&](const Zero&) { return std::string(op_word(op)); },
                               [&](const Unary&) { return std::string(op_word(op)); },
                               [&](const Binary&) { return std::string(op_word(op)); }},
                    op);
}

std::string op_label(const Op& op) {
  const auto* c = std::get_if<Compose>(&op);
  if (!c) return op_label(*primitive(op));
  std::string out = "compose[";
  for (std::size_t i = 0; i < c->stages.size(); ++i) out += (i ? ", " : "") + op_label(c->stages[i]);
  return out + "]";
}

std::string tensor_comment(const TensorSpec& t) {
  std::string out = shape_text(t.shape) + " " + std::string(level_name(t.level));
  if (t.dtype != Dtype::f32) out += " " + std::string(dtype_name(t.dtype));
  if (t.layout != Layout::row_major()) out += " " + layout_text(t.layout);
  if (t.vector_size != 0) out += " v" + std::to_string(t.vector_size);
  if (!t.contiguous) out += " strided" + (t.run_dims > 1 ? ":" + std::to_string(t.run_dims) : std::string());
  if (!t.aligned) out += " unaligned";
  if (t.shared) out += " shared";
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

struct Line {
  std::size_t indent = 0;
  std::string text;
  const ImplNode* node = nullptr;  ///< set on node lines (they carry annotations)
};

using Names = std::vector<std::string>;
using Path = std::vector<std::size_t>;

class Printer {
 public:
  Printer(const ImplPtr& root, const PrintOptions& options) : options_(options) { number_holes(root, {}); }

  void node(const ImplPtr& n, const Names& names, std::size_t indent, const Path& path) {
    if (options_.specs) lines_.push_back({indent, "# " + spec_comment(n->spec), nullptr});
    std::visit(overloaded{[&](const Loop& l) { loop(*n, l, names, indent, path); },
                          [&](const MoveOp& m) { move(*n, m, names, indent, path); },
                          [&](const Block& b) { block(*n, b, names, indent, path); },
                          [&](const Pipeline& p) { pipeline(*n, p, names, indent, path); },
                          [&](const Reshape&) { reshape(*n, names, indent, path); },
                          [&](const PadOp& p) { pad(*n, p, names, indent, path); },
                          [&](const TapSplit& t) { taps(*n, t, names, indent, path); },
                          [&](const KernelCall& k) {
                            emit(indent, std::string(kernel_name(k.kernel)) + "(" + join(names) + ")", *n);
                          },
                          [&](const Hole&) { emit(indent, "h" + std::to_string(holes_.at(path)) + ": hole", *n); }},
               n->kind);
  }

  std::string finish() const {
    std::size_t width = 0, ann_width = 0;
    std::vector<std::string> ann(lines_.size());
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (!lines_[i].node || !options_.annotate) continue;
      ann[i] = options_.annotate(*lines_[i].node);
      if (ann[i].empty()) continue;
      width = std::max(width, lines_[i].indent * 4 + lines_[i].text.size());
      ann_width = std::max(ann_width, ann[i].size());
    }
    std::string out;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      std::string line = std::string(lines_[i].indent * 4, ' ') + lines_[i].text;
      if (!ann[i].empty()) line += std::string(width - line.size() + 4 + ann_width - ann[i].size(), ' ') + ann[i];
      out += line + "\n";
    }
    return out;
  }

 private:
  void number_holes(const ImplPtr& n, const Path& path) {
    if (n->is_hole()) holes_[path] = static_cast<int>(holes_.size()) + 1;
    for (std::size_t i : child_print_order(*n)) {
      Path child = path;
      child.push_back(i);
      number_holes(n->children[i], child);
    }
  }

  static Path sub(const Path& path, std::size_t i) {
    Path p = path;
    p.push_back(i);
    return p;
  }

  void emit(std::size_t indent, std::string text, const ImplNode& n) { lines_.push_back({indent, std::move(text), &n}); }
  void label(std::size_t indent, std::string text) { lines_.push_back({indent, std::move(text), nullptr}); }

  void loop(const ImplNode& n, const Loop& l, const Names& names, std::size_t indent, const Path& path) {
    const char suffix = l.kind == LoopKind::tile ? 'T' : l.kind == LoopKind::split ? 't' : 'S';
    const Spec& full = n.children[0]->spec;
    Names inner = names;
    std::vector<std::string> listed, sources;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const TensorSpec& before = n.spec.operands[i];
      bool changes = false;
      for (const auto& body : n.children) changes |= body->spec.operands[i] != before;
      if (!changes) continue;
      inner[i] += suffix;
      const TensorSpec& after = full.operands[i];
      std::string item = inner[i] + ": " + shape_text(after.shape);
      if (after.level != before.level) item += " " + std::string(level_name(after.level));
      if (after.layout != before.layout) item += " " + layout_text(after.layout);
      listed.push_back(item);
      sources.push_back(names[i]);
    }
    std::string head = l.parallel ? "p" : "";
    head += l.kind == LoopKind::tile ? "tile" : l.kind == LoopKind::split ? "split" : "slide";
    if (l.kind != LoopKind::tile) {
      std::string sizes;
      for (std::size_t a = 0; a < l.axes.size(); ++a) sizes += (a ? "x" : "") + std::to_string(l.axes[a].tile);
      const Conv* conv = leading_conv(n.spec.op);
      if (l.window && !l.window->border.empty() && conv != nullptr) {
        sizes += " pad " + std::to_string(conv->pad[0]) + "x" + std::to_string(conv->pad[1]);
      }
      head += "[" + sizes + "]";
    }
    emit(indent, head + " (" + join(listed) + ") <- (" + join(sources) + ")", n);
    node(n.children[0], inner, indent + 1, sub(path, 0));
    for (std::size_t b = 1; b < n.children.size(); ++b) {
      std::vector<std::string> differs;
      for (std::size_t i = 0; i < names.size(); ++i) {
        const Shape& s = n.children[b]->spec.operands[i].shape;
        if (s != full.operands[i].shape) differs.push_back(inner[i] + ": " + shape_text(s));
      }
      label(indent + 1, "boundary (" + join(differs) + ")");
      node(n.children[b], inner, indent + 2, sub(path, b));
    }
  }

  void move(const ImplNode& n, const MoveOp& m, const Names& names, std::size_t indent, const Path& path) {
    const TensorSpec& source = n.spec.operands[m.operand];
    const std::string& from = names[m.operand];
    const std::string to = from + "r";
    std::string what(level_name(m.dest.level));
    if (m.dest.layout != source.layout) what += " " + layout_text(m.dest.layout);
    if (m.dest.vector_size != 0 && m.dest.vector_size != source.vector_size) {
      what += " v" + std::to_string(m.dest.vector_size);
    }
    if (m.alias) what += " alias";
    const bool output = m.operand + 1u == n.spec.operands.size();
    emit(indent, std::string(output ? "move*[" : "move[") + what + "] " + to + " <- " + from, n);
    std::size_t next = 1;
    if (m.load) {
      label(indent + 1, "load " + to + " <- " + from);
      node(n.children[next], {from, to}, indent + 2, sub(path, next));
      ++next;
    }
    Names inner = names;
    inner[m.operand] = to;
    node(n.children[0], inner, indent + 1, sub(path, 0));
    if (m.store) {
      label(indent + 1, "store " + from + " <- " + to);
      node(n.children[next], {to, from}, indent + 2, sub(path, next));
    }
  }

  void block(const ImplNode& n, const Block& b, const Names& names, std::size_t indent, const Path& path) {
    emit(indent, "block", n);
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      Names picked;
      for (auto j : b.operands[i]) picked.push_back(names.at(j));
      node(n.children[i], picked, indent + 1, sub(path, i));
    }
  }

  void pipeline(const ImplNode& n, const Pipeline& p, const Names& names, std::size_t indent, const Path& path) {
    const std::string buf = "buf" + std::to_string(++buffers_);
    std::string where = std::string(level_name(p.buffer.level)) + " " + layout_text(p.buffer.layout);
    if (p.buffer.vector_size != 0) where += " v" + std::to_string(p.buffer.vector_size);
    emit(indent, "pipeline[cut " + std::to_string(p.cut) + ", " + where + "] " + buf + ": " +
                     shape_text(p.buffer.shape), n);
    const std::size_t head_inputs = n.children[0]->spec.operands.size() - 1;
    Names head(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(head_inputs));
    head.push_back(buf);
    Names tail{buf};
    tail.insert(tail.end(), names.begin() + static_cast<std::ptrdiff_t>(head_inputs), names.end());
    node(n.children[0], head, indent + 1, sub(path, 0));
    node(n.children[1], tail, indent + 1, sub(path, 1));
  }

  void reshape(const ImplNode& n, const Names& names, std::size_t indent, const Path& path) {
    Names inner;
    std::vector<std::string> listed;
    for (std::size_t i = 0; i < names.size(); ++i) {
      inner.push_back(names[i] + "V");
      listed.push_back(inner[i] + ": " + shape_text(n.children[0]->spec.operands[i].shape) + " <- " + names[i]);
    }
    emit(indent, (reshape_flattens(n.spec) ? "flatten (" : "as_matmul (") + join(listed) + ")", n);
    node(n.children[0], inner, indent + 1, sub(path, 0));
  }

  void pad(const ImplNode& n, const PadOp& p, const Names& names, std::size_t indent, const Path& path) {
    const Conv& conv = *leading_conv(n.spec.op);
    const std::string buf = names[0] + "p";
    std::string where(level_name(p.buffer.level));
    if (p.buffer.layout != Layout::row_major()) where += " " + layout_text(p.buffer.layout);
    const bool unstrides = pad_unstrides(n.spec);
    const auto& amount = unstrides ? conv.stride : conv.pad;
    emit(indent, "pad[" + where + (unstrides ? " stride " : " ") + std::to_string(amount[0]) + "x" +
                     std::to_string(amount[1]) + "] " + buf + " <- " + names[0], n);
    Names body = names;
    body[0] = buf;
    std::vector<Names> child_names(n.children.size() - 2, Names{buf});  // the border's strips
    child_names.push_back({names[0], buf});
    child_names.push_back(body);
    for (std::size_t i = 0; i < n.children.size(); ++i) node(n.children[i], child_names[i], indent + 1, sub(path, i));
  }

  void taps(const ImplNode& n, const TapSplit& t, const Names& names, std::size_t indent, const Path& path) {
    emit(indent, "taps[" + filter_dim_word(t.dim) + "]", n);
    Names inner;
    for (const std::string& name : names) inner.push_back(name + "k");
    const auto boxes = tap_boxes(n.spec, t);
    for (std::size_t c = 0; c < n.children.size(); ++c) {
      std::vector<std::string> listed;
      for (std::size_t i = 0; i < names.size(); ++i) {
        listed.push_back(inner[i] + ": " + shape_text(n.children[c]->spec.operands[i].shape) + " <- " + names[i]);
      }
      label(indent + 1, "tap " + std::to_string(boxes[c][1].origin[t.dim]) + " (" + join(listed) + ")");
      node(n.children[c], inner, indent + 2, sub(path, c));
    }
  }

  const PrintOptions& options_;
  std::vector<Line> lines_;
  std::map<Path, int> holes_;
  int buffers_ = 0;
};

}  // namespace

std::string spec_comment(const Spec& spec) {
  std::string out = op_label(spec.op) + " (";
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == spec.operands.size() ? " -> " : ", ") + tensor_comment(spec.operands[i]);
  }
  return out + ")" + (spec.serial_only ? " serial" : "");
}

std::vector<std::string> root_operand_names(const Spec& spec) {
  if (std::holds_alternative<Compose>(spec.op)) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < spec.input_count(); ++i) names.push_back("in" + std::to_string(i));
    names.push_back("out");
    return names;
  }
  return std::visit(overloaded{[](const Matmul&) { return Names{"lhs", "rhs", "out"}; },
                               [](const Binary&) { return Names{"lhs", "rhs", "out"}; },
                               [](const Conv&) { return Names{"img", "filters", "out"}; },
                               [](const Zero&) { return Names{"out"}; },
                               [](const Move&) { return Names{"in", "out"}; },
                               [](const Unary&) { return Names{"in", "out"}; },
                               [](const ReduceSum&) { return Names{"in", "out"}; }},
                    *primitive(spec.op));
}

std::string print_impl(const ImplPtr& impl, const PrintOptions& options) {
  Printer printer(impl, options);
  printer.node(impl, root_operand_names(impl->spec), 0, {});
  return printer.finish();
}

}  // namespace kriek
