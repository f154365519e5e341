// The C of each leaf kernel (impl/kernel.h) on generator views: scalar statements, vector intrinsics on register
// variables, the broadcast-FMA outer product, and the direct convolution's reduction loop.
#pragma once

#include <string>
#include <vector>

#include "codegen/c_view.h"
#include "codegen/c_writer.h"
#include "codegen/vector_isa.h"
#include "impl/kernel.h"
#include "spec/spec.h"

namespace kriek::codegen {

/// Writes kernel `k` implementing `spec` on `ops` (inputs, then the output). `isa` is null on scalar targets.
void emit_kernel(CWriter& w, KernelKind k, const Spec& spec, const std::vector<CView>& ops, const VectorIsa* isa);

/// The address of a memory view whose elements are one dense run (a vector load or store); asserts that it is.
std::string run_address(const CView& v, KernelKind k);
/// A register of the first `lanes` elements of dense run `v` (a masked load when fewer than a register's lanes).
std::string load_register(const VectorIsa& isa, const CView& v, KernelKind k, std::int64_t lanes);

/// Writes nested loops copying every element of `from` to `to` (equal shapes), dimension by dimension in
/// increasing order (so a copy towards lower offsets of the same buffer reads each element before writing it).
void emit_copy(CWriter& w, const CView& from, const CView& to);
/// Zeroes every element of `to`: loops over its shape, innermost dimension last.
void emit_zero(CWriter& w, const CView& to);

}  // namespace kriek::codegen
