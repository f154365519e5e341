// Private to the LLVM kernels (llvm_kernels.cpp, llvm_sums.cpp): the generator of kernel bodies in LLVM IR,
// with the helpers every kernel uses (elements, dense runs and register slots loaded and stored, masks, arithmetic,
// loops over a shape) defined here, and its kernels in those two files. It includes LLVM headers: nothing outside
// codegen/'s llvm_*.cpp files includes it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/kernel_views.h"
#include "codegen/llvm_ir.h"
#include "impl/tiling.h"
#include "spec/error.h"

namespace kriek::codegen {

using llvm::Value;

/// The generator of one kernel's IR: the emitter's services (`c`) and its builder at the current point (`b`).
struct Kernels {
  IrKernelContext& c;
  llvm::IRBuilderBase& b = c.builder();

  llvm::Type* f32() { return b.getFloatTy(); }
  llvm::Type* vec() {
    KRIEK_ASSERT(c.width() > 0, "a vector kernel on a scalar target");
    return llvm::FixedVectorType::get(f32(), static_cast<unsigned>(c.width()));
  }

  Value* load(const CView& v, const Coord& at) { return b.CreateLoad(f32(), c.element(v, at)); }
  void store(Value* x, const CView& v, const Coord& at) { b.CreateStore(x, c.element(v, at)); }
  Value* at0(const CView& v) { return load(v, zeros(v.rank())); }
  void store0(Value* x, const CView& v) { store(x, v, zeros(v.rank())); }

  /// The address of a memory view whose elements are one dense run (a vector load or store).
  Value* run(const CView& v, KernelKind k) {
    KRIEK_ASSERT(v.storage == Storage::memory, kernel_name(k), ": ", v.base, " is not in memory");
    KRIEK_ASSERT(is_dense_run(v), kernel_name(k), ": the elements of ", v.base, " are not one dense run");
    return c.element(v, zeros(v.rank()));
  }
  Value* load_run(Value* address) { return b.CreateAlignedLoad(vec(), address, llvm::Align(4)); }
  /// The mask of the first `lanes` lanes.
  Value* lane_mask(std::int64_t lanes) {
    std::vector<llvm::Constant*> bits;
    for (std::int64_t i = 0; i < c.width(); ++i) bits.push_back(b.getInt1(i < lanes));
    return llvm::ConstantVector::get(bits);
  }
  /// Stores the first `lanes` lanes of `x` at `address` (the partial register that ends a row): one masked store
  /// with opmasks (AVX-512), else partial_register_stores' plain stores of 4, 2 and 1 lanes.
  void store_lanes(Value* x, Value* address, std::int64_t lanes) {
    const bool opmask = c.width() == 16;
    if (opmask) {
      b.CreateMaskedStore(x, address, llvm::Align(4), lane_mask(lanes));
      return;
    }
    std::int64_t at = 0;
    for (std::int64_t piece : partial_register_stores(lanes, opmask)) {
      Value* to = b.CreateInBoundsGEP(f32(), address, {b.getInt64(at)});
      if (piece == 1) {
        b.CreateAlignedStore(b.CreateExtractElement(x, b.getInt64(at)), to, llvm::Align(4));
      } else {
        std::vector<int> picked;
        for (std::int64_t i = 0; i < piece; ++i) picked.push_back(static_cast<int>(at + i));
        b.CreateAlignedStore(b.CreateShuffleVector(x, picked), to, llvm::Align(4));
      }
      at += piece;
    }
  }
  /// A register loaded from a dense run of `lanes` elements: whole, or masked (the other lanes zero) for the
  /// partial register that ends a row in register panels.
  Value* load_register(Value* address, std::int64_t lanes) {
    if (lanes == c.width()) return load_run(address);
    return b.CreateMaskedLoad(vec(), address, llvm::Align(4), lane_mask(lanes), llvm::Constant::getNullValue(vec()));
  }
  Value* get(const CView& v) { return b.CreateLoad(vec(), c.register_slot(v)); }
  void set(const CView& v, Value* x) { b.CreateStore(x, c.register_slot(v)); }

  Value* max(Value* x, Value* y) { return b.CreateSelect(b.CreateFCmpOLT(x, y), y, x); }
  Value* binary(BinaryOp op, Value* x, Value* y) {
    switch (op) {
      case BinaryOp::add: return b.CreateFAdd(x, y);
      case BinaryOp::mul: return b.CreateFMul(x, y);
      case BinaryOp::sub: return b.CreateFSub(x, y);
      case BinaryOp::max: return max(x, y);
    }
    KRIEK_ASSERT(false, "no binary op ", static_cast<int>(op));
    return nullptr;
  }
  Value* fma(Value* x, Value* y, Value* z) { return b.CreateIntrinsic(llvm::Intrinsic::fma, {vec()}, {x, y, z}); }
  /// x * y + z for scalar kernels, fused where the target has an FMA (llvm.fmuladd: what C compilers do with
  /// the C backend's `acc += a * b` under their default -ffp-contract=fast; vectorized, it stays one FMA).
  Value* mult_add(Value* x, Value* y, Value* z) {
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {f32()}, {x, y, z});
  }
  Value* splat(Value* x) { return b.CreateVectorSplat(static_cast<unsigned>(c.width()), x); }

  /// One loop per dimension of `shape` with extent above 1 (counted in `opened`); the index they make.
  Coord open_loops(const Shape& shape, int& opened) {
    Coord index(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
      index[d] = shape[d] == 1 ? Affine(0) : c.open_loop(shape[d]);
      opened += shape[d] != 1;
    }
    return index;
  }
  void close_loops(int opened) {
    while (opened-- > 0) c.close_loop();
  }

  // The kernels of llvm_kernels.cpp.
  void direct_conv(const CView& img, const CView& filters, const CView& out);
  void bcast_fma(const CView& a, const CView& bm, const CView& out);

  // The summing kernels and their helpers (llvm_sums.cpp).
  void chained_sums(KernelKind kind, const std::vector<CView>& rows, const std::vector<CView>& cols,
                    const std::vector<CView>& outs);
  Value* lanes_mask(Value* n);
  Value* load_first(Value* address, Value* n);
  void peeled_rows(const std::vector<Value*>& ptr, const std::vector<Value*>& acc, std::int64_t k, Level from,
                   std::int64_t rows_per_set);
  void rows_in_passes(const std::function<Value*(std::size_t, const Affine&)>& at, const std::vector<Value*>& acc,
                      std::int64_t registers, std::int64_t chains);
  void sum_runs(const CView& in, const CView& out, Level from);
  Value* lane_sums(const std::vector<Value*>& regs);
  void sum_rows(std::size_t axis, const CView& in, const CView& out);
};

}  // namespace kriek::codegen
