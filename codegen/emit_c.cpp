// The walk that turns an Impl tree into C (see emit_c.h). It follows impl/interpreter.cpp node for node: loops
// visit full tiles then each boundary pattern, moves and pipelines run on buffers of their own, slide loops shift
// their window, kernels become statements. Loops over register-held operands are unrolled here, so every register
// a kernel names is a constant; every other loop is a C loop. Buffers in memory levels are carved from a
// per-thread workspace by a stack discipline (siblings share space), so a parallel loop's body gets its own copy.
#include "codegen/emit_c.h"

#include <sstream>

#include "codegen/c_kernels.h"
#include "codegen/c_view.h"
#include "codegen/c_writer.h"
#include "codegen/vector_isa.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "spec/overloaded.h"
#include "spec/text.h"

namespace kriek::codegen {
namespace {

constexpr std::int64_t kBufferAlign = 64;

/// True when the subtree makes buffers in memory (so a parallel body needs its thread's workspace).
bool allocates(const ImplNode& n) {
  if (const auto* m = std::get_if<MoveOp>(&n.kind); m && !m->alias && storage_of(m->dest.level) == Storage::memory) {
    return true;
  }
  if (std::holds_alternative<Pipeline>(n.kind) || std::holds_alternative<PadOp>(n.kind)) return true;
  if (const auto* l = std::get_if<Loop>(&n.kind); l && l->window) return true;
  for (const auto& c : n.children) {
    if (allocates(*c)) return true;
  }
  return false;
}

class Emitter {
 public:
  Emitter(const Target& target, std::string workspace_fn)
      : isa_(vector_isa(target)), workspace_fn_(std::move(workspace_fn)) {}

  void run(const ImplNode& root, const std::vector<CView>& ops) { node(root, ops); }
  const CWriter& writer() const { return w_; }
  std::int64_t workspace_bytes() const { return ws_peak_; }
  bool root_workspace_used() const { return root_ws_used_; }
  bool uses_openmp() const { return openmp_; }

 private:
  void node(const ImplNode& n, const std::vector<CView>& ops) {
    check_operand_views(n, ops);
    std::visit(overloaded{[&](const Loop& l) { loop(n, l, ops); },
                          [&](const MoveOp& m) { move(n, m, ops); },
                          [&](const Block& b) {
                            for (std::size_t i = 0; i < n.children.size(); ++i) {
                              node(*n.children[i], block_operands(b, i, ops));
                            }
                          },
                          [&](const Pipeline& p) { pipeline(n, p, ops); },
                          [&](const AsMatmul&) {
                            const ImplNode& body = *n.children[0];
                            const auto maps = as_matmul_views(n.spec);
                            std::vector<CView> inner;
                            for (std::size_t i = 0; i < ops.size(); ++i) {
                              inner.push_back(reshaped(ops[i], maps[i], body.spec.operands[i].shape));
                            }
                            node(body, inner);
                          },
                          [&](const PadOp& p) { pad(n, p, ops); },
                          [&](const KernelCall& k) { emit_kernel(w_, k.kernel, n.spec, ops, isa_); },
                          [&](const Hole&) { KRIEK_ASSERT(false, "emit of a hole"); }},
               n.kind);
  }

  // --- Buffers.

  /// Declares a buffer for `t` and returns a view of all of it. Memory buffers come from the workspace and are
  /// released by `release(mark)` with the mark taken before.
  CView allocate(const TensorSpec& t) {
    const Storage storage = storage_of(t.level);
    const std::int64_t elements = t.layout.buffer_elements(t.shape);
    switch (storage) {
      case Storage::memory: {
        const std::int64_t offset = (ws_top_ + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
        ws_top_ = offset + elements * 4;
        ws_peak_ = std::max(ws_peak_, ws_top_);
        root_ws_used_ |= ws_ == "ws";
        const std::string name = w_.fresh("b");
        w_.line("float *restrict const " + name + " = " + ws_ + " + " + std::to_string(offset / 4) + ";");
        return whole(storage, name, t.shape, t.layout);
      }
      case Storage::scalar_registers: {
        const std::string name = w_.fresh("r");
        w_.line("float " + name + "[" + std::to_string(elements) + "] = {0};");
        return whole(storage, name, t.shape, t.layout);
      }
      case Storage::vector_registers: {
        KRIEK_ASSERT(isa_ != nullptr && t.vector_size == static_cast<std::uint32_t>(isa_->width), "vector size ",
                     t.vector_size, " on a target with ", isa_ ? isa_->width : 0, "-lane registers");
        const std::string name = w_.fresh("v");
        const std::int64_t registers = (elements + isa_->width - 1) / isa_->width;
        std::string decl = isa_->type + " ";
        for (std::int64_t r = 0; r < registers; ++r) {
          decl += (r ? ", " : "") + name + "_" + std::to_string(r) + " = " + isa_->zero + "()";
        }
        w_.line(decl + ";");
        return whole(storage, name, t.shape, t.layout, t.vector_size);
      }
    }
    return {};
  }

  // --- Loops.

  struct LoopState {
    const ImplNode* n;
    const Loop* l;
    const std::vector<CView>* ops;
    std::vector<bool> unroll;
    std::optional<CView> window;
    std::uint32_t mask = 0;
    std::size_t body = 0;
    Coord trip;
    std::size_t collapse = 0;  ///< runtime loops still to open under the pragma
  };

  void loop(const ImplNode& n, const Loop& l, const std::vector<CView>& ops) {
    LoopState s{&n, &l, &ops, unrolled_axes(n.spec, l), std::nullopt, 0, 0, {}, 0};
    const std::int64_t mark = ws_top_;
    w_.open("");
    if (l.window) {
      KRIEK_ASSERT(l.axes.size() == 1, "a slide window on a loop of ", l.axes.size(), " axes");
      const std::size_t i = l.window->operand;
      Shape shape = ops[i].shape;
      for (std::size_t d = 0; d < shape.size(); ++d) {
        const DimMap& m = l.operands[i][d];
        if (m.axis >= 0) shape[d] = l.axes[0].tile + m.halo;
      }
      TensorSpec t = n.spec.operands[i];
      t.shape = shape;
      t.level = l.window->level;
      t.layout = l.window->layout;
      s.window = allocate(t);
    }
    for (s.body = 0; s.body < l.body_masks.size(); ++s.body) {
      s.mask = l.body_masks[s.body];
      s.trip.assign(l.axes.size(), Affine(0));
      s.collapse = 0;
      if (l.parallel) {
        for (std::size_t a = 0; a < l.axes.size(); ++a) {
          if (full_trips(l, s.mask, a) <= 1) continue;
          if (s.unroll[a]) break;
          ++s.collapse;
        }
        if (s.collapse > 0) {
          openmp_ = true;
          w_.line("#pragma omp parallel for schedule(static)" +
                  (s.collapse > 1 ? " collapse(" + std::to_string(s.collapse) + ")" : std::string()));
        }
      }
      nest(s, 0);
    }
    w_.close();
    ws_top_ = mark;
  }

  /// Iterations axis `a` takes in bodies of boundary pattern `mask`: 1 at the boundary, else the full tiles.
  static std::int64_t full_trips(const Loop& l, std::uint32_t mask, std::size_t a) {
    return (mask >> a) & 1u ? 1 : l.axes[a].extent / l.axes[a].tile;
  }

  void nest(LoopState& s, std::size_t a) {
    const Loop& l = *s.l;
    if (a == l.axes.size()) return body(s);
    if ((s.mask >> a) & 1u) {
      s.trip[a] = l.axes[a].trips() - 1;
      return nest(s, a + 1);
    }
    const std::int64_t full = full_trips(l, s.mask, a);
    if (full == 1) {
      s.trip[a] = 0;
      return nest(s, a + 1);
    }
    if (s.unroll[a]) {
      for (std::int64_t t = 0; t < full; ++t) {
        s.trip[a] = t;
        nest(s, a + 1);
      }
      return;
    }
    const std::string var = w_.fresh("i");
    w_.open("for (int64_t " + var + " = 0; " + var + " < " + std::to_string(full) + "; ++" + var + ")");
    s.trip[a] = Affine::variable(var);
    const bool innermost_parallel = s.collapse == 1;
    if (s.collapse > 0) --s.collapse;
    if (innermost_parallel && allocates(*s.n->children[s.body])) {
      // Each thread carves the body's buffers from its own workspace, above what is live outside the loop.
      const std::string saved = ws_;
      ws_ = w_.fresh("ws");
      w_.line("float *const " + ws_ + " = " + workspace_fn_ + "();");
      nest(s, a + 1);
      ws_ = saved;
    } else {
      nest(s, a + 1);
    }
    w_.close();
  }

  void body(LoopState& s) {
    const Loop& l = *s.l;
    const std::vector<CView>& ops = *s.ops;
    std::vector<CView> inner;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      Coord origin = zeros(ops[i].rank());
      Shape shape = ops[i].shape;
      loop_tile(l, i, s.trip, s.mask, origin, shape);
      if (s.window && i == l.window->operand) {
        inner.push_back(advance_window(s, ops[i].sub(origin, shape)));
      } else {
        inner.push_back(ops[i].sub(origin, shape));
      }
    }
    node(*s.n->children[s.body], inner);
  }

  /// Brings the slide window up to `source` (this iteration's region of the input): the first iteration loads it
  /// all; later ones shift the overlap (the halo) down from the previous window and load only the new part.
  CView advance_window(const LoopState& s, const CView& source) {
    const Loop& l = *s.l;
    const std::size_t i = l.window->operand;
    std::size_t dim = source.rank();
    for (std::size_t d = 0; d < source.rank(); ++d) {
      if (l.operands[i][d].axis >= 0) {
        KRIEK_ASSERT(dim == source.rank(), "a slide window moves along one dimension");
        dim = d;
      }
    }
    KRIEK_ASSERT(dim < source.rank(), "a slide window that does not move");
    const CView window = s.window->sub(zeros(source.rank()), source.shape);
    const std::int64_t halo = l.operands[i][dim].halo, tile = l.axes[0].tile;
    auto load_all = [&] { emit_copy(w_, source, window); };
    auto shift_and_load = [&] {
      Coord at = zeros(source.rank());
      Shape part = source.shape;
      if (halo > 0) {
        at[dim] = tile;
        part[dim] = halo;
        emit_copy(w_, s.window->sub(at, part), s.window->sub(zeros(source.rank()), part));
      }
      at[dim] = halo;
      part[dim] = source.shape[dim] - halo;
      emit_copy(w_, source.sub(at, part), s.window->sub(at, part));
    };
    const Affine& trip = s.trip[0];
    if (trip.is_constant()) {
      trip.constant() == 0 ? load_all() : shift_and_load();
    } else {
      w_.open("if (" + trip.text() + " == 0)");
      load_all();
      w_.close();
      w_.open("else");
      shift_and_load();
      w_.close();
    }
    return window;
  }

  // --- Moves and pipelines.

  void move(const ImplNode& n, const MoveOp& m, const std::vector<CView>& ops) {
    if (m.alias) return node(*n.children[0], ops);
    const std::int64_t mark = ws_top_;
    w_.open("");
    const CView dest = allocate(m.dest);
    const CView& source = ops[m.operand];
    std::size_t next = 1;
    if (m.load) node(*n.children[next++], {source, dest});
    std::vector<CView> inner = ops;
    inner[m.operand] = dest;
    node(*n.children[0], inner);
    if (m.store) node(*n.children[next], {dest, source});
    w_.close();
    ws_top_ = mark;
  }

  void pipeline(const ImplNode& n, const Pipeline& p, const std::vector<CView>& ops) {
    const std::int64_t mark = ws_top_;
    w_.open("");
    const CView mid = allocate(p.buffer);
    const auto [head, tail] = pipeline_operands(n, ops, mid);
    node(*n.children[0], head);
    node(*n.children[1], tail);
    w_.close();
    ws_top_ = mark;
  }

  void pad(const ImplNode& n, const PadOp& p, const std::vector<CView>& ops) {
    const std::int64_t mark = ws_top_;
    w_.open("");
    const CView buffer = allocate(p.buffer);
    Coord origin;
    for (auto o : pad_interior_origin(n.spec)) origin.push_back(Affine(o));
    const auto children = pad_operands(ops, buffer, buffer.sub(origin, ops[0].shape));
    for (std::size_t i = 0; i < children.size(); ++i) node(*n.children[i], children[i]);
    w_.close();
    ws_top_ = mark;
  }

  const VectorIsa* isa_;
  std::string workspace_fn_;
  CWriter w_;
  std::string ws_ = "ws";
  std::int64_t ws_top_ = 0;
  std::int64_t ws_peak_ = 0;
  bool root_ws_used_ = false;
  bool openmp_ = false;
};

/// `text` as `// ` comment lines.
std::string comment(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) out += line.empty() ? "//\n" : "// " + line + "\n";
  return out;
}

}  // namespace

std::string function_name(const Spec& spec) {
  std::string name = "kriek_" + std::string(op_word(spec.op));
  if (accumulates(spec.op)) name += "_acc";
  for (const TensorSpec& t : spec.inputs()) name += "_" + shape_text(t.shape);
  if (spec.input_count() == 0) name += "_" + shape_text(spec.output().shape);
  name += "_" + std::string(dtype_name(spec.output().dtype));
  return name;
}

CSource emit_c(const ImplPtr& impl, const Target& target, std::string function) {
  KRIEK_ASSERT(impl != nullptr, "emit of a null Impl");
  const Spec& spec = impl->spec;
  if (const auto h = holes(impl); !h.empty()) {
    user_error("the Impl is not complete: hole h1 (", spec_comment(h.front()->spec), ") has no implementation");
  }
  for (const TensorSpec& t : spec.operands) {
    if (t.dtype != Dtype::f32) user_error("C generation handles f32 operands, not ", dtype_name(t.dtype));
  }
  if (function.empty()) function = function_name(spec);
  const std::vector<std::string> names = root_operand_names(spec);
  std::vector<CView> ops;
  std::string params;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const bool output = i + 1 == spec.operands.size();
    params += (i ? ", " : "") + std::string(output ? "float *restrict " : "const float *restrict ") + names[i];
    // The entry point takes dense row-major arrays whatever layout the root Spec names (as interpret() does).
    ops.push_back(whole(Storage::memory, names[i], spec.operands[i].shape, Layout::row_major()));
  }

  const std::string workspace_fn = function + "_workspace";
  Emitter emitter(target, workspace_fn);
  emitter.run(*impl, ops);

  PrintOptions print;
  print.specs = false;
  std::ostringstream c;
  c << "// Generated by kriek for target " << target.name << " (" << isa_name(target.isa) << ").\n"
    << "// Spec: " << spec_text(spec) << "\n"
    << "// Entry point: " << function << "(" << params << ")\n"
    << "// Operands are dense row-major arrays; the output is the last.\n//\n"
    << comment(print_impl(impl, print)) << "\n";
  if (vector_isa(target) != nullptr) c << "#include <immintrin.h>\n";
  c << "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n";
  const std::int64_t ws = emitter.workspace_bytes();
  if (ws > 0) {
    c << "\n"
      << "// Scratch for the Impl's buffers, " << ws << " bytes per calling thread, allocated on first use.\n"
      << "static float *" << workspace_fn << "(void) {\n"
      << "  static _Thread_local float *ws;\n"
      << "  if (!ws) {\n"
      << "    ws = aligned_alloc(64, " << (ws + kBufferAlign - 1) / kBufferAlign * kBufferAlign << ");\n"
      << "    if (!ws) {\n"
      << "      fputs(\"" << function << ": cannot allocate " << ws << " bytes of workspace\\n\", stderr);\n"
      << "      abort();\n"
      << "    }\n"
      << "  }\n"
      << "  return ws;\n"
      << "}\n";
  }
  c << "\nvoid " << function << "(" << params << ") {\n";
  if (emitter.root_workspace_used()) c << "  float *const ws = " << workspace_fn << "();\n";
  std::istringstream body(emitter.writer().text());
  for (std::string line; std::getline(body, line);) c << "  " << line << "\n";
  c << "}\n";
  return CSource{c.str(), function, ws, emitter.uses_openmp(), names};
}

}  // namespace kriek::codegen
