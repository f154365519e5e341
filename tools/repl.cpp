// The REPL's commands.
#include "tools/repl.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "codegen/emit_c.h"
#include "impl/interpreter.h"
#include "impl/printer.h"
#include "spec/reference_check.h"
#include "spec/error.h"
#include "spec/text.h"
#include "tools/command.h"
#include "tools/kernel_run.h"

namespace kriek::tools {
namespace {

struct Help {
  const char* name;
  const char* usage;
  const char* text;
};

const std::vector<Help>& help_table() {
  static const std::vector<Help> table = {
      {"spec", "spec TEXT", "start scheduling a Spec, e.g. spec matmul 128x128x128 f32"},
      {"tile_out", "tile_out E1 E2 ... [parallel]", "loop over output tiles of that shape"},
      {"split", "split K", "loop over the reduction in steps of K (to_accum first when needed)"},
      {"slide", "slide DIM SIZE [LEVEL] [LAYOUT]", "sliding window over a conv image dimension"},
      {"move", "move in0|in1|...|out LEVEL [LAYOUT]", "move an operand to a faster level (or pack it)"},
      {"to_accum", "to_accum", "zero the output, then accumulate"},
      {"bufferize", "bufferize CUT LEVEL [LAYOUT]", "cut a compose before stage CUT with a buffer"},
      {"select", "select KERNEL", "implement the focused hole with a kernel"},
      {"focus", "focus hN", "apply the next operators to hole hN"},
      {"complete", "complete [hN|all]", "fill hole hN, or every hole (the default), with the DP's best"},
      {"actions", "actions", "the legal actions of the focused hole with their best completed cost"},
      {"cost", "cost", "the Impl with the cost of every node and the peak memory per level"},
      {"check", "check", "interpret the Impl (holes by their reference) on random data against the reference"},
      {"show", "show", "print the Impl"},
      {"undo", "undo", "take the last step back"},
      {"redo", "redo", "apply the step undone last again"},
      {"emit", "emit [FILE]", "print the complete Impl's C (or write it to FILE)"},
      {"run", "run", "compile the complete Impl, check it against the reference and time it"},
      {"save", "save FILE", "write the session as a script (replay with kriek script FILE)"},
      {"help", "help [COMMAND]", "list the commands, or explain one"},
      {"quit", "quit", "leave"},
  };
  return table;
}

std::int64_t number(const std::string& w, const char* what) {
  if (w.empty() || w.size() > 12 || w.find_first_not_of("0123456789") != std::string::npos) {
    user_error(what, " must be a number, got '", w, "'");
  }
  return std::stoll(w);
}

Level level_arg(const std::string& w) {
  auto l = parse_level(w);
  if (!l) user_error("unknown level '", w, "' (GL, L2, L1, VRF, RF)");
  return *l;
}

std::optional<Layout> layout_arg(const std::vector<std::string>& words, std::size_t i) {
  if (i >= words.size()) return std::nullopt;
  const std::string& w = words[i];
  if (w == "row") return Layout::row_major();
  if (w == "col") return Layout::col_major();
  if (w.rfind("blk", 0) == 0) {
    const auto colon = w.find(':');
    if (colon != std::string::npos) {
      return Layout::blocked(static_cast<std::uint8_t>(number(w.substr(3, colon - 3), "the blocked dimension")),
                             static_cast<std::uint32_t>(number(w.substr(colon + 1), "the block size")));
    }
  }
  user_error("unknown layout '", w, "' (row, col, blk<dim>:<block>)");
}

void expect_args(const std::vector<std::string>& words, std::size_t lo, std::size_t hi) {
  const std::size_t n = words.size() - 1;
  if (n < lo || n > hi) {
    for (const Help& h : help_table()) {
      if (words[0] == h.name) user_error("usage: ", h.usage);
    }
  }
}

}  // namespace

Repl::Repl(Target target) : target_(std::move(target)) {}

const Schedule& Repl::current() const {
  if (states_.empty()) user_error("no Spec yet: start with `spec TEXT`, e.g. spec matmul 64x64x64 f32");
  return states_[at_];
}

Synthesizer& Repl::synth() {
  if (!synth_) synth_ = std::make_unique<Synthesizer>(target_, CostModel::for_target(target_));
  return *synth_;
}

void Repl::show(std::ostream& out, bool costs) const {
  const Schedule& s = current();
  PrintOptions options;
  if (costs) {
    const CostModel model = CostModel::for_target(target_);
    options.annotate = [&](const ImplNode& n) {
      if (n.is_hole()) return std::string("?");
      return std::to_string(evaluate(ImplPtr(ImplPtr{}, &n), target_, model).cost);
    };
  }
  out << print_impl(s.impl(), options);
  const auto open = s.holes();
  if (open.empty()) {
    out << "complete\n";
  } else {
    out << open.size() << " open hole" << (open.size() == 1 ? "" : "s") << ", focus " << s.focused()->name << "\n";
  }
  if (costs) {
    const ImplCost c = evaluate(s.impl(), target_, CostModel::for_target(target_));
    out << "cost " << c.cost << (open.empty() ? "" : " (holes not counted)") << ", peak " << c.peak << "\n";
  }
}

void Repl::push(Schedule next, const std::string& line, std::ostream& out) {
  states_.erase(states_.begin() + static_cast<std::ptrdiff_t>(at_) + 1, states_.end());
  lines_.erase(lines_.begin() + static_cast<std::ptrdiff_t>(at_) + 1, lines_.end());
  states_.push_back(std::move(next));
  lines_.push_back(line);
  ++at_;
  show(out, false);
}

bool Repl::execute(const std::string& line, std::ostream& out) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty() || words[0][0] == '#') return true;
  try {
    run(words, out);
    return true;
  } catch (const UserError& e) {
    out << "error: " << e.what() << "\n";
    return false;
  }
}

void Repl::run(const std::vector<std::string>& words, std::ostream& out) {
  const std::string& cmd = words[0];
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
  if (cmd == "spec") {
    if (words.size() < 2) user_error("usage: spec TEXT");
    const Spec spec = parse_spec(line.substr(5), target_);
    states_.assign(1, schedule(spec, target_));
    lines_.assign(1, line);
    at_ = 0;
    show(out, false);
  } else if (cmd == "tile_out") {
    expect_args(words, 1, 16);
    Shape tile;
    bool parallel = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "parallel") parallel = true;
      else tile.push_back(number(words[i], "a tile extent"));
    }
    push(current().tile_out(tile, parallel), line, out);
  } else if (cmd == "split") {
    expect_args(words, 1, 1);
    push(current().split(number(words[1], "k")), line, out);
  } else if (cmd == "slide") {
    expect_args(words, 2, 4);
    const Level level = words.size() > 3 ? level_arg(words[3]) : Level::L1;
    push(current().slide(static_cast<std::uint8_t>(number(words[1], "the dimension")), number(words[2], "the size"),
                         level, layout_arg(words, 4).value_or(Layout::row_major())),
         line, out);
  } else if (cmd == "move") {
    expect_args(words, 2, 3);
    const auto hole = current().focused();
    if (!hole) user_error("the Impl is complete: no hole to move in");
    const Spec& spec = hole->spec;
    const std::string& who = words[1];
    std::uint8_t operand = 0;
    if (who == "out") {
      operand = static_cast<std::uint8_t>(spec.operands.size() - 1);
    } else if (who.size() > 2 && who.rfind("in", 0) == 0) {
      operand = static_cast<std::uint8_t>(number(who.substr(2), "the input number"));
      if (operand >= spec.input_count()) {
        user_error("no input '", who, "': the focused Spec has ", spec.input_count(), " inputs");
      }
    } else {
      user_error("move takes in0, in1, ... or out, got '", who, "'");
    }
    const Level level = level_arg(words[2]);
    const Layout layout = layout_arg(words, 3).value_or(Layout::row_major());
    push(who == "out" ? current().move_output(level, layout) : current().move_input(operand, level, layout), line,
         out);
  } else if (cmd == "to_accum") {
    expect_args(words, 0, 0);
    push(current().to_accum(), line, out);
  } else if (cmd == "bufferize") {
    expect_args(words, 2, 3);
    push(current().bufferize(static_cast<std::uint8_t>(number(words[1], "the cut")), level_arg(words[2]),
                             layout_arg(words, 3).value_or(Layout::row_major())),
         line, out);
  } else if (cmd == "select") {
    expect_args(words, 1, 1);
    const auto k = parse_kernel(words[1]);
    if (!k) user_error("unknown kernel '", words[1], "'");
    push(current().select(*k), line, out);
  } else if (cmd == "focus") {
    expect_args(words, 1, 1);
    push(current().focus(words[1]), line, out);
  } else if (cmd == "complete") {
    expect_args(words, 0, 1);
    Synthesizer& dp = synth();
    const std::function<ImplPtr(const Spec&)> best = [&](const Spec& s) {
      auto impl = dp.best(s, capacities(target_));
      if (!impl) user_error("no Impl of ", spec_text(s), " fits the target's memory");
      return *impl;
    };
    if (words.size() == 2 && words[1] != "all") {
      push(current().focus(words[1]).complete_focused(best), line, out);
    } else {
      push(current().complete(best), line, out);
    }
  } else if (cmd == "actions") {
    expect_args(words, 0, 0);
    const auto hole = current().focused();
    if (!hole) user_error("the Impl is complete: no hole to list actions for");
    const Spec& spec = hole->spec;
    Synthesizer& dp = synth();
    dp.solve(spec);
    for (const Action& a : enumerate_actions(spec, target_)) {
      ApplyResult r = apply(a, spec, target_);
      const ImplPtr node = std::get<ImplPtr>(r);
      const NodeCost nc = node_cost(*node, target_, dp.model());
      Cost cost = nc.base;
      bool ok = true;
      for (std::size_t i = 0; i < node->children.size() && ok; ++i) {
        const Frontier& f = dp.solve(node->children[i]->spec);
        ok = !f.empty();
        if (ok) cost += nc.weights[i] * f.entries.front().cost;
      }
      out << "  " << action_text(a, spec) << "  " << (ok ? std::to_string(cost) : std::string("(no completion)"))
          << "\n";
    }
  } else if (cmd == "check") {
    expect_args(words, 0, 0);
    const ImplPtr impl = current().impl();
    const Verification v = check_against_reference(
        impl->spec, 1, [&](const std::vector<float*>& ops) { interpret(impl, ops); });
    if (!v.ok()) {
      user_error("the Impl differs from the reference: max error ", v.max_error, " at output element ", v.worst,
                 " (tolerance ", v.tolerance, ")");
    }
    out << "matches the reference (max error " << v.max_error << ", tolerance " << v.tolerance << ")\n";
  } else if (cmd == "cost") {
    expect_args(words, 0, 0);
    show(out, true);
  } else if (cmd == "show") {
    expect_args(words, 0, 0);
    show(out, false);
  } else if (cmd == "undo") {
    if (at_ == 0) user_error("nothing to undo");
    --at_;
    show(out, false);
  } else if (cmd == "redo") {
    if (at_ + 1 >= states_.size()) user_error("nothing to redo");
    ++at_;
    show(out, false);
  } else if (cmd == "save") {
    expect_args(words, 1, 1);
    std::ofstream file(words[1]);
    if (!file) user_error("cannot write '", words[1], "'");
    for (std::size_t i = 0; i <= at_ && i < lines_.size(); ++i) file << lines_[i] << "\n";
    out << "saved " << at_ + 1 << " lines to " << words[1] << "\n";
  } else if (cmd == "help") {
    for (const Help& h : help_table()) {
      if (words.size() == 1) out << "  " << h.usage << "\n";
      else if (words[1] == h.name) out << h.usage << "\n  " << h.text << "\n";
    }
    if (words.size() > 1 &&
        std::none_of(help_table().begin(), help_table().end(), [&](const Help& h) { return words[1] == h.name; })) {
      user_error("no command '", words[1], "'");
    }
  } else if (cmd == "quit" || cmd == "exit") {
    finished_ = true;
  } else if (cmd == "emit") {
    expect_args(words, 0, 1);
    const codegen::CSource c = codegen::emit_c(current().impl(), target_);
    if (words.size() == 1) {
      out << c.code;
    } else {
      write_file_atomically(words[1], c.code);
      out << "wrote " << c.function << " to " << words[1] << "\n";
    }
  } else if (cmd == "run") {
    expect_args(words, 0, 0);
    if (run_kernel(current().impl(), target_, KernelRunOptions{}, out) != 0) {
      user_error("the kernel does not compute the reference (a kriek bug; the source is kept)");
    }
  } else {
    user_error("unknown command '", cmd, "' (help lists them)");
  }
}

std::vector<std::string> Repl::completions() const {
  std::vector<std::string> names;
  for (const Help& h : help_table()) names.push_back(h.name);
  for (Level l : kAllLevels) names.emplace_back(level_name(l));
  for (KernelKind k : kAllKernels) names.emplace_back(kernel_name(k));
  names.insert(names.end(), {"in0", "in1", "in2", "out", "all", "parallel", "row", "col"});
  if (!states_.empty()) {
    for (const OpenHole& h : current().holes()) names.push_back(h.name);
  }
  return names;
}

int run_repl(std::istream& in, std::ostream& out, std::ostream& err, bool interactive, const Target& target) {
  Repl repl(target);
  std::string line;
  std::size_t number = 0;
  while (!repl.finished()) {
    if (interactive) out << "kriek> " << std::flush;
    if (!std::getline(in, line)) break;
    ++number;
    std::ostringstream result;
    const bool ok = repl.execute(line, result);
    if (!ok && !interactive) {
      std::string message = result.str();
      const auto pos = message.rfind("error: ");
      err << "kriek: error: line " << number << ": " << message.substr(pos == std::string::npos ? 0 : pos + 7);
      return 1;
    }
    out << result.str();
  }
  return 0;
}

}  // namespace kriek::tools
