// The walk that lowers an Impl tree for an Emitter (see lowering.h). It follows impl/interpreter.cpp node for
// node: loops visit full tiles then each boundary pattern (a parallel loop as one loop over all its team's trips,
// each branching to the body of its pattern), moves and pipelines run on buffers of their own, slide loops shift
// their window, kernels become kernel operations. Loops over register-held operands are unrolled
// here, so every register a kernel names is a constant; every other loop is an emitted loop. Buffers in memory
// levels are carved from a per-thread workspace by a stack discipline (siblings share space), so a parallel
// loop's body gets its own copy.
#include "codegen/lowering.h"

#include <algorithm>
#include <optional>

#include "codegen/slide_window.h"
#include "codegen/vector_isa.h"
#include "impl/printer.h"
#include "impl/taps.h"
#include "impl/team.h"
#include "impl/tiling.h"
#include "spec/error.h"
#include "spec/overloaded.h"

namespace kriek::codegen {
namespace {

/// True when the subtree makes buffers in memory (so a parallel body needs its thread's workspace).
bool allocates(const ImplNode& n) {
  if (const auto* m = std::get_if<MoveOp>(&n.kind); m && !m->alias && storage_of(m->dest.level) == Storage::memory) {
    return true;
  }
  if (const auto* p = std::get_if<Pipeline>(&n.kind); p && storage_of(p->buffer.level) == Storage::memory) {
    return true;
  }
  if (std::holds_alternative<PadOp>(n.kind)) return true;
  if (const auto* l = std::get_if<Loop>(&n.kind); l && l->window) return true;
  for (const auto& c : n.children) {
    if (allocates(*c)) return true;
  }
  return false;
}

class Walk {
 public:
  Walk(const Target& target, Emitter& e) : target_(target), isa_(vector_isa(target)), e_(e) {}

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
                          [&](const Reshape&) {
                            const ImplNode& body = *n.children[0];
                            const auto maps = reshape_views(n.spec);
                            std::vector<CView> inner;
                            for (std::size_t i = 0; i < ops.size(); ++i) {
                              inner.push_back(reshaped(ops[i], maps[i], body.spec.operands[i].shape));
                            }
                            node(body, inner);
                          },
                          [&](const PadOp& p) { pad(n, p, ops); },
                          [&](const TapSplit& t) {
                            const auto children = tap_operands(n.spec, t, ops, [](const CView& v, const Shape& at,
                                                                                  const Shape& shape) {
                              return v.sub(constant(at), shape);
                            });
                            for (std::size_t i = 0; i < children.size(); ++i) node(*n.children[i], children[i]);
                          },
                          [&](const KernelCall& k) {
                            if (carries_prefetches(k.kernel)) {
                              for (const PrefetchPlan& p : prefetches_) e_.prefetch(p);
                            }
                            e_.kernel(k.kernel, n.spec, ops);
                          },
                          [&](const Hole&) { KRIEK_ASSERT(false, "lowering of a hole"); }},
               n.kind);
  }

  Lowered result() const { return Lowered{ws_peak_, root_ws_used_, parallel_}; }

 private:
  // --- Buffers.

  /// Declares a buffer for `t` and returns a view of all of it. Memory buffers come from the workspace and are
  /// released by resetting ws_top_ to the mark taken before.
  CView allocate(const TensorSpec& t) {
    const Storage storage = storage_of(t.level);
    const std::int64_t elements = t.layout.buffer_elements(t.shape);
    switch (storage) {
      case Storage::memory: {
        const std::int64_t bytes = static_cast<std::int64_t>(dtype_bytes(t.dtype));
        const std::int64_t offset = (ws_top_ + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
        const Shape carved = carved_shape(t);
        ws_top_ = offset + t.layout.buffer_elements(carved) * bytes;
        ws_peak_ = std::max(ws_peak_, ws_top_);
        root_ws_used_ |= ws_ == kRootWorkspace;
        CView v = whole(storage, e_.memory_buffer(ws_, offset / bytes), carved, t.layout);
        v.shape = t.shape;
        return v;
      }
      case Storage::scalar_registers: return whole(storage, e_.scalar_registers(elements), t.shape, t.layout);
      case Storage::vector_registers: {
        KRIEK_ASSERT(isa_ != nullptr && t.vector_size == static_cast<std::uint32_t>(isa_->width), "vector size ",
                     t.vector_size, " on a target with ", isa_ ? isa_->width : 0, "-lane registers");
        const std::int64_t registers = (elements + isa_->width - 1) / isa_->width;
        return whole(storage, e_.vector_registers(registers), t.shape, t.layout, t.vector_size);
      }
    }
    return {};
  }

  /// Runs `body` in a scope whose memory buffers are released at its end.
  template <class F>
  void scoped(F&& body) {
    const std::int64_t mark = ws_top_;
    e_.open_scope();
    body();
    e_.close_scope();
    ws_top_ = mark;
  }

  // --- Loops.

  struct LoopState {
    const ImplNode* n;
    const Loop* l;
    const std::vector<CView>* ops;
    AxisFlags unroll;
    std::optional<CView> window;
    std::optional<WindowPlan> plan;
    std::int64_t first_trip = 0;  ///< the first trip of the emitted loop over the window's axis
    std::uint32_t mask = 0;
    std::size_t body = 0;
    Coord trip;
    std::uint32_t team = 0;  ///< the axes of the parallel nest (team_axes), whose trips are set before nest()
  };

  void loop(const ImplNode& n, const Loop& l, const std::vector<CView>& ops) {
    // A parallel loop's iterations run on other threads, which do not share a prefetch's counter: a streamed
    // move around it prefetches nothing inside.
    std::vector<PrefetchPlan> outside;
    if (l.parallel) std::swap(outside, prefetches_);
    LoopState s{&n, &l, &ops, unrolled_axes(n.spec, l), std::nullopt, std::nullopt, 0, 0, 0, {}, 0};
    scoped([&] {
      if (l.window) {
        KRIEK_ASSERT(!l.parallel, "a parallel slide loop");
        // The buffer is what a full iteration's body reads (children[0]: boundary pattern 0, the full tiles).
        s.window = allocate(n.children.front()->spec.operands[l.window->operand]);
        s.plan = window_plan(n.spec, l);
      }
      s.trip.assign(l.axes.size(), Affine(0));
      const TeamAxes team = team_axes(l, s.unroll);
      if (team.empty()) return team_bodies(s, team, {}, 0, 0);  // serially, every body in turn
      team_nest(s, team);
    });
    if (l.parallel) std::swap(outside, prefetches_);
  }

  /// A parallel loop: its team axes' trips, boundary trips included, as one collapsed parallel loop (the
  /// runtime's ranges or OpenMP's static schedule) whose iterations branch to the body of their boundary pattern.
  void team_nest(LoopState& s, const TeamAxes& team) {
    const Loop& l = *s.l;
    std::vector<std::int64_t> trips;
    for (std::size_t a : team) trips.push_back(l.axes[a].trips());
    parallel_ = true;
    e_.parallel(trips);
    std::vector<Affine> vars;
    for (std::size_t a : team) {
      vars.push_back(e_.open_loop(l.axes[a].trips()));
      vars_.push_back(vars.back());
      s.team |= 1u << a;
    }
    // Each thread carves the bodies' buffers from its own workspace, above what is live outside the loop.
    const std::string saved = ws_;
    if (std::ranges::any_of(s.n->children, [](const ImplPtr& c) { return allocates(*c); })) {
      ws_ = e_.thread_workspace();
    }
    team_bodies(s, team, vars, 0, 0);
    ws_ = saved;
    for (std::size_t i = 0; i < team.size(); ++i) {
      vars_.pop_back();
      e_.close_loop();
    }
  }

  /// The bodies a team trip runs: along team axis `i` and after, a branch between the full tiles and the boundary
  /// (the axis's last trip) where it has one; then, the team axes' pattern `bits` known, every body of that
  /// pattern over the other axes (with no team, every body).
  void team_bodies(LoopState& s, const TeamAxes& team, const std::vector<Affine>& vars,
                   std::size_t i, std::uint32_t bits) {
    const Loop& l = *s.l;
    if (i == team.size()) {
      for (s.body = 0; s.body < l.body_masks.size(); ++s.body) {
        s.mask = l.body_masks[s.body];
        if ((s.mask & s.team) == bits) nest(s, 0);
      }
      return;
    }
    const std::size_t a = team[i];
    const std::int64_t full = l.axes[a].full_trips();
    const auto full_tiles = [&] {
      s.trip[a] = vars[i];
      team_bodies(s, team, vars, i + 1, bits);
    };
    if (l.axes[a].remainder() == 0) return full_tiles();
    e_.below_or_rest(vars[i], full, full_tiles, [&] {
      s.trip[a] = Affine(full);
      team_bodies(s, team, vars, i + 1, bits | 1u << a);
    });
  }

  void nest(LoopState& s, std::size_t a) {
    const Loop& l = *s.l;
    if (a == l.axes.size()) return body(s);
    if ((s.team >> a) & 1u) return nest(s, a + 1);
    if ((s.mask >> a) & 1u) {
      s.trip[a] = l.axes[a].trips() - 1;
      return nest(s, a + 1);
    }
    const std::int64_t full = l.axes[a].full_trips();  // the boundary was taken above
    if (full == 1) {
      s.trip[a] = 0;
      return nest(s, a + 1);
    }
    if (s.plan) return window_nest(s, a, full);
    if (s.unroll[a]) {
      for (std::int64_t t = 0; t < full; ++t) {
        s.trip[a] = t;
        nest(s, a + 1);
      }
      return;
    }
    s.trip[a] = e_.open_loop(full);
    vars_.push_back(s.trip[a]);
    nest(s, a + 1);
    vars_.pop_back();
    e_.close_loop();
  }

  /// A slide loop's full iterations: those whose window reaches into a padded image's border with constant trips,
  /// the others as one emitted loop (or unrolled).
  void window_nest(LoopState& s, std::size_t a, std::int64_t full) {
    const auto [leading, trailing] = border_trips(*s.plan, full);
    auto constant_trips = [&](std::int64_t from, std::int64_t to) {
      for (std::int64_t t = from; t < to; ++t) {
        s.trip[a] = t;
        nest(s, a + 1);
      }
    };
    constant_trips(0, leading);
    const std::int64_t middle = full - leading - trailing;
    if (s.unroll[a] || middle <= 1) {
      constant_trips(leading, leading + middle);
    } else {
      s.trip[a] = e_.open_loop(middle) + Affine(leading);
      s.first_trip = leading;
      vars_.push_back(s.trip[a]);
      nest(s, a + 1);
      vars_.pop_back();
      e_.close_loop();
    }
    constant_trips(full - trailing, full);
  }

  void body(LoopState& s) {
    const Loop& l = *s.l;
    const std::vector<CView>& ops = *s.ops;
    std::vector<CView> inner;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const bool windowed = s.window && i == l.window->operand;
      Coord origin = zeros(ops[i].rank());
      Shape shape = windowed ? window_source_shape(s.n->spec.operands[i], *l.window) : ops[i].shape;
      loop_tile(l, i, s.trip, s.mask, origin, shape);
      if (windowed) {
        inner.push_back(advance(s, ops[i], origin, shape));
      } else {
        inner.push_back(ops[i].sub(origin, shape));
      }
    }
    node(*s.n->children[s.body], inner);
  }

  /// Brings the slide window up to this iteration's region (`origin`, `shape`) of the padded `operand`: the
  /// first iteration loads it all, later ones shift the overlap and load the rest.
  CView advance(const LoopState& s, const CView& operand, const Coord& origin, const Shape& shape) {
    auto step = [&](bool first) { return advance_window(e_, *s.plan, operand, *s.window, origin, shape, first); };
    const Affine& trip = s.trip[0];
    if (trip.is_constant()) return step(trip.constant() == 0);
    if (s.first_trip > 0) return step(false);
    e_.below_or_rest(trip, 1, [&] { step(true); }, [&] { step(false); });
    return s.window->sub(zeros(shape.size()), shape);
  }

  // --- Moves, pipelines and padding.

  void move(const ImplNode& n, const MoveOp& m, const std::vector<CView>& ops) {
    if (m.alias) {
      // The body, with the next tile's prefetches where the alias streams its operand.
      const std::optional<PrefetchPlan> plan = streamed_tile(n, m, ops[m.operand], vars_, target_);
      if (!plan) return node(*n.children[0], ops);
      return scoped([&] {
        prefetches_.push_back(*plan);
        prefetches_.back().counter = e_.prefetch_counter(*plan);
        node(*n.children[0], ops);
        prefetches_.pop_back();
      });
    }
    scoped([&] {
      const CView dest = allocate(m.dest);
      const CView& source = ops[m.operand];
      std::size_t next = 1;
      if (m.load) node(*n.children[next++], {source, dest});
      std::vector<CView> inner = ops;
      inner[m.operand] = dest;
      node(*n.children[0], inner);
      if (m.store) node(*n.children[next], {dest, source});
    });
  }

  void pipeline(const ImplNode& n, const Pipeline& p, const std::vector<CView>& ops) {
    scoped([&] {
      const CView mid = allocate(p.buffer);
      const auto [head, tail] = pipeline_operands(n, ops, mid);
      node(*n.children[0], head);
      node(*n.children[1], tail);
    });
  }

  void pad(const ImplNode& n, const PadOp& p, const std::vector<CView>& ops) {
    scoped([&] {
      const CView buffer = allocate(p.buffer);
      std::vector<CView> border;
      for (const Box& strip : pad_border(n.spec)) border.push_back(buffer.sub(constant(strip.origin), strip.shape));
      const auto children = pad_operands(n.spec, ops, buffer, border, [&](const Shape& at, const Shape& shape) {
        return buffer.sub(constant(at), shape);
      });
      for (std::size_t i = 0; i < children.size(); ++i) node(*n.children[i], children[i]);
    });
  }

  const Target& target_;
  const VectorIsa* isa_;
  Emitter& e_;
  std::string ws_ = kRootWorkspace;
  std::int64_t ws_top_ = 0;
  std::int64_t ws_peak_ = 0;
  bool root_ws_used_ = false;
  bool parallel_ = false;
  std::vector<Affine> vars_;                 ///< the emitted loops' variables open here, outermost first
  std::vector<PrefetchPlan> prefetches_;     ///< the streamed moves around here (their kernels' prefetch steps)
};

}  // namespace

Lowered lower(const ImplNode& root, const std::vector<CView>& ops, const Target& target, Emitter& emitter) {
  Walk walk(target, emitter);
  walk.node(root, ops);
  return walk.result();
}

std::vector<CView> root_views(const Spec& spec, const std::vector<std::string>& names) {
  std::vector<CView> ops;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    ops.push_back(whole(Storage::memory, names[i], spec.operands[i].shape, spec.operands[i].layout));
  }
  return ops;
}

void check_generable(const ImplPtr& impl) {
  KRIEK_ASSERT(impl != nullptr, "code generation of a null Impl");
  if (const auto h = holes(impl); !h.empty()) {
    user_error("the Impl is not complete: hole h1 (", spec_comment(h.front()->spec), ") has no implementation");
  }
  for (const TensorSpec& t : impl->spec.operands) {
    if (t.dtype != Dtype::f32) user_error("code generation handles f32 operands, not ", dtype_name(t.dtype));
  }
}

Shape carved_shape(const TensorSpec& t) {
  constexpr std::int64_t kAliasBytes = 4096;
  const Layout& l = t.layout;
  const auto bytes = static_cast<std::int64_t>(dtype_bytes(t.dtype));
  if (l.kind != Layout::Kind::blocked || t.level == Level::L1 || t.rank() < 2 ||
      t.shape[l.dim] <= static_cast<std::int64_t>(l.block) || !whole_lines(l.block, t.dtype)) {
    return t.shape;
  }
  const auto panel_bytes = [&](const Shape& s) {
    return l.buffer_elements(s) / ((s[l.dim] + l.block - 1) / l.block) * bytes;
  };
  if (panel_bytes(t.shape) % kAliasBytes != 0) return t.shape;
  std::size_t pad = t.rank() - 1;
  if (pad == l.dim) --pad;
  Shape padded = t.shape;
  ++padded[pad];
  return panel_bytes(padded) % kAliasBytes != 0 ? padded : t.shape;
}

}  // namespace kriek::codegen
