// The C emitter (see emit_c.h): the lowering (lowering.h) walks the Impl; this file spells its operations as C
// text and wraps them in a file with the Impl as a comment, the workspace function and the entry point.
#include "codegen/emit_c.h"

#include <bit>
#include <sstream>

#include "codegen/c_kernels.h"
#include "codegen/c_view.h"
#include "codegen/c_writer.h"
#include "codegen/lowering.h"
#include "codegen/vector_isa.h"
#include "impl/printer.h"
#include "spec/error.h"
#include "spec/text.h"

namespace kriek::codegen {
namespace {

/// Spells the lowering's operations as C text: blocks for scopes, `for` loops, OpenMP pragmas, buffer
/// declarations, kernels as intrinsics (c_kernels.cpp).
class CEmitter final : public Emitter {
 public:
  CEmitter(const Target& target, std::string workspace_fn)
      : isa_(vector_isa(target)), workspace_fn_(std::move(workspace_fn)) {}

  const CWriter& writer() const { return w_; }

  void open_scope() override { w_.open(""); }
  void close_scope() override { w_.close(); }

  std::string memory_buffer(const std::string& workspace, std::int64_t offset) override {
    const std::string name = w_.fresh("b");
    w_.line("float *restrict const " + name + " = " + workspace + " + " + std::to_string(offset) + ";");
    return name;
  }
  std::string scalar_registers(std::int64_t elements) override {
    const std::string name = w_.fresh("r");
    w_.line("float " + name + "[" + std::to_string(elements) + "] = {0};");
    return name;
  }
  std::string vector_registers(std::int64_t registers) override {
    const std::string name = w_.fresh("v");
    std::string decl = isa_->type + " ";
    for (std::int64_t r = 0; r < registers; ++r) {
      decl += (r ? ", " : "") + name + "_" + std::to_string(r) + " = " + isa_->zero + "()";
    }
    w_.line(decl + ";");
    return name;
  }

  void parallel(const std::vector<std::int64_t>& trips) override {
    w_.line("#pragma omp parallel for schedule(static)" +
            (trips.size() > 1 ? " collapse(" + std::to_string(trips.size()) + ")" : std::string()));
  }
  Affine open_loop(std::int64_t trips) override {
    const std::string var = w_.fresh("i");
    w_.open("for (int64_t " + var + " = 0; " + var + " < " + std::to_string(trips) + "; ++" + var + ")");
    return Affine::variable(var);
  }
  void close_loop() override { w_.close(); }
  std::string thread_workspace() override {
    const std::string ws = w_.fresh("ws");
    w_.line("float *const " + ws + " = " + workspace_fn_ + "();");
    return ws;
  }
  void below_or_rest(const Affine& trip, std::int64_t bound, const std::function<void()>& below,
                     const std::function<void()>& rest) override {
    w_.open("if (" + trip.text() + " < " + std::to_string(bound) + ")");
    below();
    w_.close();
    w_.open("else");
    rest();
    w_.close();
  }

  void kernel(KernelKind k, const Spec& spec, const std::vector<CView>& ops) override {
    emit_kernel(w_, k, spec, ops, isa_);
  }
  void copy(const CView& from, const CView& to) override { emit_copy(w_, from, to); }
  void zero(const CView& to) override { emit_zero(w_, to); }

  std::string prefetch_counter(const PrefetchPlan& p) override {
    const std::string name = w_.fresh("pf");
    w_.line("// Streamed from main memory: the FMA kernels below fetch the " + std::to_string(p.lines) +
            " lines of the next tile of " + p.base + ", one every " + std::to_string(p.spacing) + " calls" +
            (p.per_step > 1 ? " (" + std::to_string(p.per_step) + " each)" : std::string()) + ".");
    w_.line("int64_t " + name + " = 0;");
    return name;
  }
  void prefetch(const PrefetchPlan& p) override {
    const std::string& c = p.counter;
    const std::string due = p.spacing > 1 ? "(" + c + " & " + std::to_string(p.spacing - 1) + ") == 0 && " : "";
    w_.open("if (" + due + c + " < " + std::to_string(p.fetching_steps()) + ")");
    const int shift = std::countr_zero(static_cast<std::uint64_t>(p.spacing));
    const std::string first = "(" + c + (shift > 0 ? " >> " + std::to_string(shift) : "") + ")" +
                              (p.per_step > 1 ? " * " + std::to_string(p.per_step) : "");
    for (std::int64_t q = 0; q < p.per_step; ++q) {
      const std::string j = q == 0 ? first : "(" + first + " + " + std::to_string(q) + ")";
      std::string line;
      for (std::size_t d = 0; d < p.dims.size(); ++d) {
        const PrefetchDim& dim = p.dims[d];
        std::string index = dim.inner > 1 ? "(" + j + " / " + std::to_string(dim.inner) + ")" : j;
        if (d > 0) index = "(" + index + " % " + std::to_string(dim.extent) + ")";
        line += " + " + index + " * " + std::to_string(dim.stride);
      }
      const std::string fetch = "__builtin_prefetch((const void *)((uintptr_t)" + p.base + " + sizeof(float) * (" +
                                p.offset.text() + line + ")), 0, " + (p.into_l1 ? "3" : "2") + ");";
      w_.line(q == 0 ? fetch : "if (" + j + " < " + std::to_string(p.lines) + ") " + fetch);
    }
    w_.close();
    w_.line("++" + c + ";");
  }

 private:
  const VectorIsa* isa_;
  std::string workspace_fn_;
  CWriter w_;
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
  check_generable(impl);
  const Spec& spec = impl->spec;
  if (function.empty()) function = function_name(spec);
  const std::vector<std::string> names = root_operand_names(spec);
  std::string params;
  for (std::size_t i = 0; i < spec.operands.size(); ++i) {
    const bool output = i + 1 == spec.operands.size();
    params += (i ? ", " : "") + std::string(output ? "float *restrict " : "const float *restrict ") + names[i];
  }

  const std::string workspace_fn = function + "_workspace";
  CEmitter emitter(target, workspace_fn);
  const Lowered lowered = lower(*impl, root_views(spec, names), target, emitter);

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
  const std::int64_t ws = lowered.workspace_bytes;
  if (ws > 0) {
    c << "\n"
      << "// Scratch for the Impl's buffers, " << ws << " bytes per calling thread, allocated on first use.\n"
      << "static float *" << workspace_fn << "(void) {\n"
      << "  static _Thread_local float *ws;\n"
      << "  if (!ws) {\n"
      << "    ws = aligned_alloc(" << kWorkspaceAlign << ", " << workspace_allocation(ws) << ");\n"
      << "    if (!ws) {\n"
      << "      fputs(\"" << function << ": cannot allocate " << ws << " bytes of workspace\\n\", stderr);\n"
      << "      abort();\n"
      << "    }\n"
      << "  }\n"
      << "  return ws;\n"
      << "}\n";
  }
  c << "\nvoid " << function << "(" << params << ") {\n";
  if (lowered.root_workspace) c << "  float *const " << kRootWorkspace << " = " << workspace_fn << "();\n";
  std::istringstream body(emitter.writer().text());
  for (std::string line; std::getline(body, line);) c << "  " << line << "\n";
  c << "}\n";
  return CSource{c.str(), function, ws, lowered.parallel, names};
}

}  // namespace kriek::codegen
