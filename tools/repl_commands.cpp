// The REPL's command table and handlers (see repl_commands.h).
#include "tools/repl_commands.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iomanip>
#include <ostream>

#include "codegen/emit_c.h"
#include "impl/interpreter.h"
#include "impl/printer.h"
#include "impl/taps.h"
#include "spec/error.h"
#include "spec/reference_check.h"
#include "spec/text.h"
#include "tools/command.h"
#include "tools/kernel_run.h"

namespace kriek::tools {
namespace {

using Words = std::vector<std::string>;

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

/// The layout in words[i], row-major when absent.
Layout layout_arg(const Words& words, std::size_t i) {
  if (i >= words.size()) return Layout::row_major();
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

// ---- Completions: what each argument may be ----

std::vector<std::string> level_words() {
  std::vector<std::string> out;
  for (Level l : kAllLevels) out.emplace_back(level_name(l));
  return out;
}

std::vector<std::string> hole_words(const ReplSession& s) {
  std::vector<std::string> out;
  if (!s.states.empty()) {
    for (const OpenHole& h : s.current().holes()) out.push_back(h.name);
  }
  return out;
}

std::vector<std::string> layout_words() { return {"row", "col"}; }

std::vector<std::string> complete_tile_out(const ReplSession&, std::size_t) { return {"parallel"}; }
std::vector<std::string> complete_slide(const ReplSession&, std::size_t i) {
  return i == 2 ? level_words() : i == 3 ? layout_words() : std::vector<std::string>{};
}
std::vector<std::string> complete_move(const ReplSession& s, std::size_t i) {
  if (i == 1) return level_words();
  if (i == 2) {
    std::vector<std::string> words = layout_words();
    words.push_back("copy");
    return words;
  }
  std::vector<std::string> out;
  const std::size_t inputs =
      s.states.empty() || !s.current().focused() ? 2 : s.current().focused()->spec.input_count();
  for (std::size_t n = 0; n < inputs; ++n) out.push_back("in" + std::to_string(n));
  out.push_back("out");
  return out;
}
std::vector<std::string> complete_bufferize(const ReplSession&, std::size_t i) {
  return i == 1 ? level_words() : i == 2 ? layout_words() : std::vector<std::string>{};
}
std::vector<std::string> complete_pad_image(const ReplSession&, std::size_t i) {
  return i == 0 ? level_words() : i == 1 ? layout_words() : std::vector<std::string>{};
}
std::vector<std::string> complete_split_taps(const ReplSession&, std::size_t i) {
  return i == 0 ? std::vector<std::string>{filter_dim_word(0), filter_dim_word(1)} : std::vector<std::string>{};
}
std::vector<std::string> complete_select(const ReplSession&, std::size_t) {
  std::vector<std::string> out;
  for (KernelKind k : kAllKernels) out.emplace_back(kernel_name(k));
  return out;
}
std::vector<std::string> complete_focus(const ReplSession& s, std::size_t) { return hole_words(s); }
std::vector<std::string> complete_complete(const ReplSession& s, std::size_t) {
  std::vector<std::string> out = hole_words(s);
  out.push_back("all");
  return out;
}
std::vector<std::string> complete_actions(const ReplSession&, std::size_t) { return {"--all"}; }
std::vector<std::string> complete_help(const ReplSession&, std::size_t) {
  std::vector<std::string> out;
  for (const ReplCommand& c : repl_commands()) out.emplace_back(c.name);
  return out;
}

// ---- Handlers ----

void run_spec(ReplSession& s, const Words&, const std::string& line, std::ostream& out) {
  s.start(schedule(parse_spec(line.substr(5), s.target), s.target), line, out);
}

void run_tile_out(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  Shape tile;
  bool parallel = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "parallel") parallel = true;
    else tile.push_back(number(words[i], "a tile extent"));
  }
  s.push(s.current().tile_out(tile, parallel), line, out);
}

void run_split(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  std::optional<std::uint8_t> axis = 0;
  if (words.size() > 2 && !(axis = split_axis_of(words[2]))) {
    user_error("split's axis is fh (a conv's filter rows) or fw (its columns), got '", words[2], "'");
  }
  s.push(s.current().split(number(words[1], "k"), *axis), line, out);
}

void run_slide(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  const Level level = words.size() > 3 ? level_arg(words[3]) : Level::L1;
  s.push(s.current().slide(static_cast<std::uint8_t>(number(words[1], "the dimension")), number(words[2], "the size"),
                           level, layout_arg(words, 4)),
         line, out);
}

void run_move(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  const Spec spec = s.focused("move in").spec;
  const std::string& who = words[1];
  std::uint8_t operand = 0;
  if (who.size() > 2 && who.rfind("in", 0) == 0) {
    operand = static_cast<std::uint8_t>(number(who.substr(2), "the input number"));
    if (operand >= spec.input_count()) {
      user_error("no input '", who, "': the focused Spec has ", spec.input_count(), " inputs");
    }
  } else if (who != "out") {
    user_error("move takes in0, in1, ... or out, got '", who, "'");
  }
  const Level level = level_arg(words[2]);
  if (words.size() > 3 && words.back() == "copy") {
    if (who == "out") user_error("move out ... copy: only an input is packed in its own placement");
    return s.push(s.current().copy_input(operand, level), line, out);
  }
  const Layout layout = layout_arg(words, 3);
  s.push(who == "out" ? s.current().move_output(level, layout) : s.current().move_input(operand, level, layout), line,
         out);
}

void run_to_accum(ReplSession& s, const Words&, const std::string& line, std::ostream& out) {
  s.push(s.current().to_accum(), line, out);
}

void run_bufferize(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  s.push(s.current().bufferize(static_cast<std::uint8_t>(number(words[1], "the cut")), level_arg(words[2]),
                               layout_arg(words, 3)),
         line, out);
}

void run_pad_image(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  s.push(s.current().apply(PadImage{level_arg(words[1]), layout_arg(words, 2)}), line, out);
}

void run_split_taps(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  const std::optional<std::uint8_t> dim = filter_dim_of(words[1]);
  if (!dim) user_error("split_taps cuts fh (a conv's filter rows) or fw (its columns), got '", words[1], "'");
  s.push(s.current().apply(SplitTaps{*dim}), line, out);
}

void run_to_matmul(ReplSession& s, const Words&, const std::string& line, std::ostream& out) {
  s.push(s.current().apply(ToMatmul{}), line, out);
}

void run_flatten(ReplSession& s, const Words&, const std::string& line, std::ostream& out) {
  s.push(s.current().apply(Flatten{}), line, out);
}

void run_select(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  const auto k = parse_kernel(words[1]);
  if (!k) user_error("unknown kernel '", words[1], "'");
  s.push(s.current().select(*k), line, out);
}

void run_focus(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  s.push(s.current().focus(words[1]), line, out);
}

/// Fills holes with the DP's best Impl within what the nodes around each leave of the limits (hole_limits): hole
/// `words[1]`, or every hole (the last first, so that the others keep their names).
void run_complete(ReplSession& s, const Words& words, const std::string& line, std::ostream& out) {
  Synthesizer& dp = s.synth();
  const auto fill = [&](const Schedule& focused) {
    const MemoryUse room = s.hole_limits(focused);
    return focused.complete_focused([&](const Spec& spec) {
      auto impl = dp.best(spec, room);
      if (!impl) user_error("no Impl of ", spec_text(spec), " fits the memory limits ", room, " (", s.limits,
                            " less the buffers around it)");
      return *impl;
    });
  };
  if (words.size() == 2 && words[1] != "all") return s.push(fill(s.current().focus(words[1])), line, out);
  Schedule next = s.current();
  const std::vector<OpenHole> holes = next.holes();
  for (auto hole = holes.rbegin(); hole != holes.rend(); ++hole) next = fill(next.focus(hole->name));
  s.push(std::move(next), line, out);
}

/// The focused hole's legal actions by the cost of their cheapest completion within the limits (the DP's own
/// fold: Synthesizer::action_options), the cheapest marked `*`, each with the peak memory it needs; with --all
/// also the actions that have no completion within the limits.
void run_actions(ReplSession& s, const Words& words, const std::string&, std::ostream& out) {
  const bool all = words.size() == 2;
  if (all && words[1] != "--all") user_error("actions takes --all or nothing, got '", words[1], "'");
  const Spec spec = s.focused("list actions for").spec;
  const MemoryUse room = s.hole_limits(s.current());
  const std::vector<ActionOption> options = s.synth().action_options(spec, room);
  // By cost, those without a completion last; ties in enumeration order.
  std::vector<std::size_t> order(options.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const ActionOption &a = options[x], &b = options[y];
    if (a.cost.has_value() != b.cost.has_value()) return a.cost.has_value();
    return a.cost && *a.cost < *b.cost;
  });
  std::size_t width = 0;
  for (const ActionOption& o : options) width = std::max(width, action_text(o.action, spec).size());
  const bool any = !order.empty() && options[order.front()].cost;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ActionOption& o = options[order[i]];
    if (!o.cost && !all) break;
    out << (i == 0 && o.cost ? "* " : "  ") << std::left << std::setw(static_cast<int>(width))
        << action_text(o.action, spec) << std::right;
    if (o.cost) out << "  cost " << *o.cost << "  peak " << o.peak << "\n";
    else out << "  no completion within the memory limits\n";
  }
  if (!any) out << "no action completes within the memory limits " << room << "\n";
}

void run_check(ReplSession& s, const Words&, const std::string&, std::ostream& out) {
  const ImplPtr impl = s.current().impl();
  const Verification v =
      check_against_reference(impl->spec, 1, [&](const std::vector<float*>& ops) { interpret(impl, ops); });
  if (!v.ok()) {
    user_error("the Impl differs from the reference: max error ", v.max_error, " at output element ", v.worst,
               " (tolerance ", v.tolerance, ")");
  }
  out << "matches the reference (max error " << v.max_error << ", tolerance " << v.tolerance << ")\n";
}

void run_cost(ReplSession& s, const Words&, const std::string&, std::ostream& out) { s.show(out, true); }
void run_show(ReplSession& s, const Words&, const std::string&, std::ostream& out) { s.show(out, false); }

void run_undo(ReplSession& s, const Words&, const std::string&, std::ostream& out) {
  if (s.at == 0) user_error("nothing to undo");
  --s.at;
  s.show(out, false);
}

void run_redo(ReplSession& s, const Words&, const std::string&, std::ostream& out) {
  if (s.at + 1 >= s.states.size()) user_error("nothing to redo");
  ++s.at;
  s.show(out, false);
}

void run_emit(ReplSession& s, const Words& words, const std::string&, std::ostream& out) {
  const codegen::CSource c = codegen::emit_c(s.current().impl(), s.target);
  if (words.size() == 1) {
    out << c.code;
  } else {
    write_file_atomically(words[1], c.code);
    out << "wrote " << c.function << " to " << words[1] << "\n";
  }
}

void run_run(ReplSession& s, const Words&, const std::string&, std::ostream& out) {
  double seconds = 0;
  KernelRunOptions options;
  options.median_seconds = &seconds;
  options.backend = s.backend;
  if (run_kernel(s.current().impl(), s.target, options, out) != 0) {
    user_error("the kernel does not compute the reference (a kriek bug; the source is kept)");
  }
  s.measured[print_impl(s.current().impl())] = seconds;
}

void run_save(ReplSession& s, const Words& words, const std::string&, std::ostream& out) {
  std::ofstream file(words[1]);
  if (!file) user_error("cannot write '", words[1], "'");
  for (std::size_t i = 0; i <= s.at && i < s.lines.size(); ++i) file << s.lines[i] << "\n";
  out << "saved " << s.at + 1 << " lines to " << words[1] << "\n";
}

void run_help(ReplSession&, const Words& words, const std::string&, std::ostream& out) {
  if (words.size() == 1) {
    for (const ReplCommand& c : repl_commands()) out << "  " << c.usage() << "\n";
    return;
  }
  const ReplCommand* c = find_repl_command(words[1]);
  if (!c) user_error("no command '", words[1], "'");
  out << c->usage() << "\n  " << c->help << "\n";
}

void run_quit(ReplSession& s, const Words&, const std::string&, std::ostream&) { s.finished = true; }

constexpr std::size_t kMany = 64;

}  // namespace

std::string ReplCommand::usage() const { return args.empty() ? std::string(name) : std::string(name) + " " + std::string(args); }

const std::vector<ReplCommand>& repl_commands() {
  static const std::vector<ReplCommand> table = {
      {"spec", "TEXT", "start scheduling a Spec, e.g. spec matmul 128x128x128 f32", 1, kMany, nullptr, run_spec},
      {"tile_out", "E1 E2 ... [parallel]", "loop over output tiles of that shape", 1, 16, complete_tile_out,
       run_tile_out},
      {"split", "K [fh|fw]", "loop over the reduction in steps of K, or a conv's filter rows (fh) or columns (fw)",
       1, 2, nullptr, run_split},
      {"slide", "DIM SIZE [LEVEL] [LAYOUT]", "sliding window over a conv image dimension", 2, 4, complete_slide,
       run_slide},
      {"move", "in0|in1|...|out LEVEL [LAYOUT | copy]",
       "move an operand to a faster level (or pack it); copy packs a strided input into a cache in its own "
       "placement, where the move would alias it",
       2, 3, complete_move, run_move},
      {"to_accum", "", "zero the output, then accumulate", 0, 0, nullptr, run_to_accum},
      {"bufferize", "CUT LEVEL [LAYOUT]", "cut a compose before stage CUT with a buffer", 2, 3, complete_bufferize,
       run_bufferize},
      {"pad_image", "LEVEL [LAYOUT]", "read a padded conv's image from a zero-bordered copy at LEVEL", 1, 2,
       complete_pad_image, run_pad_image},
      {"split_taps", "fh|fw",
       "accumulate a padded conv one filter row (fh) or column (fw) at a time, each over the outputs that read "
       "the image there (no products with the padding)",
       1, 1, complete_split_taps, run_split_taps},
      {"to_matmul", "", "compute a conv with a 1x1 window as a matmul over views of its operands", 0, 0, nullptr,
       run_to_matmul},
      {"flatten", "", "compute an elementwise op over flat runs of its operands' elements (rows of runs if strided)",
       0, 0, nullptr, run_flatten},
      {"select", "KERNEL", "implement the focused hole with a kernel", 1, 1, complete_select, run_select},
      {"focus", "hN", "apply the next operators to hole hN", 1, 1, complete_focus, run_focus},
      {"complete", "[hN|all]",
       "fill hole hN, or every hole (the default), with the DP's best within the memory limits less what the nodes "
       "around the hole hold",
       0, 1, complete_complete, run_complete},
      {"actions", "[--all]",
       "the focused hole's legal actions by their best completed cost within the memory limits (best marked *), "
       "with the peak memory each needs; --all lists those with no completion too",
       0, 1, complete_actions, run_actions},
      {"cost", "",
       "the Impl with the cost of every node and the peak memory per level; after run, the measured time beside",
       0, 0, nullptr, run_cost},
      {"check", "", "interpret the Impl (holes by their reference) on random data against the reference", 0, 0,
       nullptr, run_check},
      {"show", "", "print the Impl", 0, 0, nullptr, run_show},
      {"undo", "", "take the last step back", 0, 0, nullptr, run_undo},
      {"redo", "", "apply the step undone last again", 0, 0, nullptr, run_redo},
      {"emit", "[FILE]", "print the complete Impl's C (or write it to FILE)", 0, 1, nullptr, run_emit},
      {"run", "", "compile the complete Impl, check it against the reference and time it", 0, 0, nullptr, run_run},
      {"compare", "", "time the complete Impl against the DP's pick in alternating rounds", 0, 0, nullptr,
       run_compare},
      {"save", "FILE", "write the session as a script (replay with kriek script FILE)", 1, 1, nullptr, run_save},
      {"help", "[COMMAND]", "list the commands, or explain one", 0, 1, complete_help, run_help},
      {"quit", "", "leave (exit too)", 0, 0, nullptr, run_quit},
  };
  return table;
}

const ReplCommand* find_repl_command(std::string_view name) {
  if (name == "exit") name = "quit";
  for (const ReplCommand& c : repl_commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace kriek::tools
