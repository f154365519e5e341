// The target-neutral lowering of a complete Impl that both code generators share: the walk over the tree (full
// and boundary loop nests, register tiles unrolled so every register a kernel names is a constant, the workspace
// stack that carves memory buffers, slide windows, parallel loops with per-thread workspaces) lowered to a
// stream of a few target operations on views (scopes, buffers, counted loops, kernels, copies), which an Emitter
// turns into C text (emit_c.cpp) or LLVM IR (llvm_emitter.cpp). The walk decides; an emitter only spells.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/c_view.h"
#include "codegen/prefetch.h"
#include "impl/kernel.h"
#include "impl/node.h"
#include "spec/target.h"

namespace kriek::codegen {

/// Alignment in bytes of every buffer carved from a workspace (a cache line; vector loads never split one).
inline constexpr std::int64_t kBufferAlign = 64;
/// Alignment of a workspace itself, and the multiple its size is rounded up to: a page, so that where its buffers
/// fall within a page, and so which of their lines 4K-alias the operands', does not depend on where the allocator
/// put it. At 64 bytes, the fidelity benchmark's 8 candidates of matmul 17x64x40 (0.8-1.3 us) ranked against
/// their predicted costs with rho -0.90 and the DP's pick 45-61% slower than the fastest in two runs of the
/// suite, within 1% when timed alone; page-aligned, within 0.3% in both runs of the suite.
inline constexpr std::int64_t kWorkspaceAlign = 4096;

/// `bytes` of workspace as allocated: a whole number of pages (aligned_alloc wants a multiple of the alignment).
inline constexpr std::int64_t workspace_allocation(std::int64_t bytes) {
  return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
}

/// The shape of the buffer a blocked tensor `t` beyond L1 is carved from: its own, unless its panels are a
/// multiple of 4 KiB apart, which puts the same line of every panel into one L1 set: a register tile n vectors wide
/// then streams the n lines of each k-step into one set. There the innermost dimension other than the blocked one
/// gets one more element, which moves each panel on by whole lines (that padding is never read or written). Only
/// panels of whole lines, so that every panel still starts on one. Emitted C of the same Impls with and without,
/// compiled into one process, 15 alternating rounds on a Cascade Lake VM: matmul 512^3 (B in 16-column panels of
/// 512 rows in L2, 6x64 tiles) 0.92-0.93x the time, 1024^3 0.97x, on 2 threads 0.97-0.98x, 2048^3 1.00x; conv
/// 1x28x28x128 3x3x128x128 (filters in L2, 36 KiB panels) 0.92x. Not for buffers in L1, which are read where they
/// are: conv 1x7x7x512 3x3x512x512's 64x64 filter blocks in L1 (4 KiB panels) took 1.11x the time carved.
Shape carved_shape(const TensorSpec& t);

/// The workspace the entry point obtains for the calling thread (a per-thread workspace has a fresh name).
inline constexpr const char* kRootWorkspace = "ws";

/// What the lowering asks of a code generator. Names (buffers, loop variables, workspaces) are the emitter's
/// own: the walk only passes them back inside views and Affine expressions.
class Emitter {
 public:
  virtual ~Emitter() = default;

  /// A lexical scope around a node's buffers: buffers declared inside end at its close.
  virtual void open_scope() = 0;
  virtual void close_scope() = 0;

  /// A buffer of floats at element `offset` of workspace `workspace`; returns the base of its views.
  virtual std::string memory_buffer(const std::string& workspace, std::int64_t offset) = 0;
  /// `elements` scalar registers, zeroed; returns the base of its views.
  virtual std::string scalar_registers(std::int64_t elements) = 0;
  /// `registers` vector registers, zeroed; returns the base of its views (register r of base b is `b_r`).
  virtual std::string vector_registers(std::int64_t registers) = 0;

  /// The next `trips.size()` loops opened (one per entry, outermost first) form one collapsed parallel loop whose
  /// iterations may run on any thread in any order.
  virtual void parallel(const std::vector<std::int64_t>& trips) = 0;
  /// A loop of `trips` iterations; returns its variable, counting 0, 1, ..., trips - 1.
  virtual Affine open_loop(std::int64_t trips) = 0;
  virtual void close_loop() = 0;
  /// Inside the innermost loop of a parallel nest: the workspace of the thread running this iteration.
  virtual std::string thread_workspace() = 0;
  /// Runs `below` when `trip` (not a constant) is less than `bound`, else `rest`.
  virtual void below_or_rest(const Affine& trip, std::int64_t bound, const std::function<void()>& below,
                             const std::function<void()>& rest) = 0;

  /// Kernel `k` implementing `spec` on `ops` (inputs, then the output).
  virtual void kernel(KernelKind k, const Spec& spec, const std::vector<CView>& ops) = 0;
  /// Copies every element of `from` into `to` (equal shapes), dimension by dimension in increasing order.
  virtual void copy(const CView& from, const CView& to) = 0;
  /// Sets every element of `to` to zero.
  virtual void zero(const CView& to) = 0;

  /// Declares a step counter of `plan`'s prefetches (prefetch.h), 0, in the current scope; returns its name.
  virtual std::string prefetch_counter(const PrefetchPlan& plan) = 0;
  /// One step of `plan` (before an FMA kernel call): fetches its lines due on this count, then counts up.
  virtual void prefetch(const PrefetchPlan& plan) = 0;
};

/// What the entry point must provide, known once the walk is done.
struct Lowered {
  /// Bytes of workspace each calling thread needs (the stack's peak).
  std::int64_t workspace_bytes = 0;
  /// The root workspace kRootWorkspace is used (the entry point must obtain it before the body).
  bool root_workspace = false;
  /// Some loop runs in parallel.
  bool parallel = false;
};

/// Lowers `root` on `ops` (the root operands' views, inputs then the output) into `emitter`.
Lowered lower(const ImplNode& root, const std::vector<CView>& ops, const Target& target, Emitter& emitter);

/// The root operands as arrays in memory named `names`, each in the layout its Spec declares (as interpret()
/// takes them): what every entry point takes.
std::vector<CView> root_views(const Spec& spec, const std::vector<std::string>& names);

/// Checks that `impl` can be generated: complete (else a UserError naming its first hole) and all f32.
void check_generable(const ImplPtr& impl);

}  // namespace kriek::codegen
