// The summing kernels in LLVM IR, one for one with c_sums.cpp: dot_fma's and vec_sum_run's chained sums over dense
// runs, vec_sum_runs' rows summed into the lanes of one register (peeled to their first cache lines where
// sum_runs_peel says so) and vec_sum_rows' sums along an outer axis, with the lane-sum tree that transposes a
// register of sums into its lanes (shared by vec_sum_runs and a tile of dots).
#include <bit>
#include <functional>

#include <llvm/IR/InlineAsm.h>

#include "codegen/llvm_kernels_impl.h"

namespace kriek::codegen {

/// outs[s] += the sum over k elements of dense runs: for dot_fma the dot of row s / n of `rows` and column s % n
/// of `cols`, for vec_sum_run (`cols` empty) its one row alone; each sum in dot_fma_chains accumulators stepping
/// through the runs' whole registers (every run loaded once per step), a partial last register masked, then its
/// chains summed pairwise, then its lanes.
void Kernels::chained_sums(KernelKind kind, const std::vector<CView>& rows, const std::vector<CView>& cols,
                           const std::vector<CView>& outs) {
  const std::int64_t k = rows.front().shape.back(), width = c.width(), whole = k - k % width;
  const std::size_t n = std::max<std::size_t>(1, cols.size());
  const std::int64_t chains =
      dot_fma_chains(static_cast<std::int64_t>(outs.size()), std::max<std::int64_t>(1, k / width));
  KRIEK_ASSERT(whole % (chains * width) == 0, kernel_name(kind), ": ", whole, " elements in ", chains, " chains of ",
               width);
  std::vector<Value*> pa, pb;
  for (const CView& row : rows) pa.push_back(run(row, kind));
  for (const CView& col : cols) pb.push_back(run(col, kind));
  // acc[s][i]: chain i of sum s.
  std::vector<std::vector<Value*>> acc(outs.size());
  for (std::vector<Value*>& sum : acc) {
    for (std::int64_t i = 0; i < chains; ++i) {
      sum.push_back(c.slot(vec()));
      b.CreateStore(llvm::Constant::getNullValue(vec()), sum.back());
    }
  }
  // One step at `at` on chain i, `lanes` lanes of each run (the rest of a partial last register loads zero).
  const auto step = [&](const Affine& at, std::int64_t i, std::int64_t lanes) {
    std::vector<Value*> va, vb;
    for (Value* p : pa) va.push_back(load_register(b.CreateInBoundsGEP(f32(), p, {c.index(at)}), lanes));
    for (Value* p : pb) vb.push_back(load_register(b.CreateInBoundsGEP(f32(), p, {c.index(at)}), lanes));
    for (std::size_t s = 0; s < outs.size(); ++s) {
      Value* slot = acc[s][static_cast<std::size_t>(i)];
      Value* sum = b.CreateLoad(vec(), slot);
      sum = cols.empty() ? b.CreateFAdd(sum, va[s / n]) : fma(va[s / n], vb[s % n], sum);
      b.CreateStore(sum, slot);
    }
  };
  if (whole > 0) {
    const Affine j = c.open_loop(whole / (chains * width)) * (chains * width);
    for (std::int64_t i = 0; i < chains; ++i) step(j + Affine(i * width), i, width);
    c.close_loop();
  }
  if (whole < k) step(Affine(whole), 0, k - whole);  // the runs' partial last register, masked
  std::vector<Value*> sums;  // each sum's chains added pairwise
  for (const std::vector<Value*>& slots : acc) {
    std::vector<Value*> v;
    for (Value* slot : slots) v.push_back(b.CreateLoad(vec(), slot));
    for (std::size_t step = 1; step < v.size(); step *= 2) {
      for (std::size_t i = 0; i + step < v.size(); i += 2 * step) v[i] = b.CreateFAdd(v[i], v[i + step]);
    }
    sums.push_back(v[0]);
  }
  if (dot_fma_tree(static_cast<std::int64_t>(outs.size()), width)) {
    // A register of sums at a time, transposed into its lanes.
    for (std::size_t first = 0; first < sums.size(); first += static_cast<std::size_t>(width)) {
      const std::size_t last = std::min(sums.size(), first + static_cast<std::size_t>(width));
      Value* lanes = lane_sums({sums.begin() + static_cast<std::ptrdiff_t>(first),
                                sums.begin() + static_cast<std::ptrdiff_t>(last)});
      for (std::size_t s = first; s < last; ++s) {
        store0(b.CreateFAdd(at0(outs[s]), b.CreateExtractElement(lanes, b.getInt64(s - first))), outs[s]);
      }
    }
    return;
  }
  // Each sum's lanes in a tree (reassociation allowed on this one reduction, as _mm512_reduce_add_ps does).
  llvm::FastMathFlags reassoc;
  reassoc.setAllowReassoc();
  for (std::size_t s = 0; s < outs.size(); ++s) {
    Value* lanes = b.CreateFAddReduce(llvm::ConstantFP::get(f32(), -0.0), sums[s]);
    llvm::cast<llvm::Instruction>(lanes)->setFastMathFlags(reassoc);
    store0(b.CreateFAdd(at0(outs[s]), lanes), outs[s]);
  }
}

/// The mask of the first `n` lanes for a count known only at run time (0 <= n <= 16 lanes of 16).
Value* Kernels::lanes_mask(Value* n) {
  Value* bits = b.CreateSub(b.CreateShl(b.getInt32(1), b.CreateTrunc(n, b.getInt32Ty())), b.getInt32(1));
  return b.CreateBitCast(b.CreateTrunc(bits, b.getInt16Ty()),
                         llvm::FixedVectorType::get(b.getInt1Ty(), static_cast<unsigned>(c.width())));
}
/// A register of the first `n` elements at `address` (a count known at run time), its other lanes zero.
Value* Kernels::load_first(Value* address, Value* n) {
  return b.CreateMaskedLoad(vec(), address, llvm::Align(4), lanes_mask(n), llvm::Constant::getNullValue(vec()));
}

/// vec_sum_runs' rows from their first cache lines on (codegen/kernel_views.h's sum_runs_peel, as the C backend
/// does): each row's lanes before its line masked, m whole registers every row has in one loop, the rest (0 to
/// 30 lanes) in two masked loads.
void Kernels::peeled_rows(const std::vector<Value*>& ptr, const std::vector<Value*>& acc, std::int64_t k,
                          Level from, std::int64_t rows_per_set) {
  const std::int64_t width = c.width();
  const std::int64_t m = (k - (width - 1)) / width;
  std::vector<Value*> line, rest;
  for (std::size_t r = 0; r < ptr.size(); ++r) {
    Value* address = b.CreatePtrToInt(ptr[r], b.getInt64Ty());
    Value* head = b.CreateLShr(b.CreateAnd(b.CreateNeg(address), b.getInt64(63)), b.getInt64(2));
    b.CreateStore(b.CreateFAdd(b.CreateLoad(vec(), acc[r]), load_first(ptr[r], head)), acc[r]);
    line.push_back(b.CreateGEP(f32(), ptr[r], {head}));
    rest.push_back(b.CreateSub(b.getInt64(k - m * width), head));
  }
  const auto at_line = [&](std::size_t r, const Affine& j) { return b.CreateGEP(f32(), line[r], {c.index(j)}); };
  rows_in_passes(at_line, acc, m, sum_runs_chains(m * width, width, from, rows_per_set));
  for (std::size_t r = 0; r < ptr.size(); ++r) {
    Value* tail = b.CreateGEP(f32(), line[r], {b.getInt64(m * width)});
    Value* first = b.CreateSelect(b.CreateICmpULT(rest[r], b.getInt64(width)), rest[r], b.getInt64(width));
    Value* sum = b.CreateFAdd(b.CreateLoad(vec(), acc[r]), load_first(tail, first));
    Value* second = b.CreateSub(rest[r], first);
    sum = b.CreateFAdd(sum, load_first(b.CreateGEP(f32(), tail, {b.getInt64(width)}), second));
    b.CreateStore(sum, acc[r]);
  }
}

/// vec_sum_runs' rows summed width / chains at a time (sum_runs_chains, as the C backend's rows_in_passes), `chains`
/// accumulators each (the first the row's own slot acc[r]) stepping through the `registers` whole registers from
/// at(r, 0) in one loop, the registers left over one per chain, then each row's chains added pairwise into acc[r].
/// One chain: every row in one loop, one add per register.
void Kernels::rows_in_passes(const std::function<Value*(std::size_t, const Affine&)>& at,
                             const std::vector<Value*>& acc, std::int64_t registers, std::int64_t chains) {
  if (registers == 0) return;
  const std::int64_t width = c.width(), looped = registers / chains * chains;
  const auto group = static_cast<std::size_t>(width / chains);
  for (std::size_t first = 0; first < acc.size(); first += group) {
    const std::size_t last = std::min(acc.size(), first + group);
    std::vector<std::vector<Value*>> chain(last - first);  // chain[r - first][ch]
    for (std::size_t r = first; r < last; ++r) {
      chain[r - first].push_back(acc[r]);
      for (std::int64_t ch = 1; ch < chains; ++ch) {
        chain[r - first].push_back(c.slot(vec()));
        b.CreateStore(llvm::Constant::getNullValue(vec()), chain[r - first].back());
      }
    }
    const auto add = [&](std::size_t r, std::int64_t ch, const Affine& j) {
      Value* slot = chain[r - first][static_cast<std::size_t>(ch)];
      b.CreateStore(b.CreateFAdd(b.CreateLoad(vec(), slot), load_run(at(r, j))), slot);
    };
    const Affine j = c.open_loop(looped / chains) * (chains * width);
    for (std::size_t r = first; r < last; ++r) {
      for (std::int64_t ch = 0; ch < chains; ++ch) add(r, ch, j + Affine(ch * width));
    }
    c.close_loop();
    for (std::size_t r = first; r < last; ++r) {
      for (std::int64_t i = looped; i < registers; ++i) add(r, i - looped, Affine(i * width));
      std::vector<Value*> v;  // the chains added pairwise
      for (Value* slot : chain[r - first]) v.push_back(b.CreateLoad(vec(), slot));
      for (std::size_t step = 1; step < v.size(); step *= 2) {
        for (std::size_t i = 0; i + step < v.size(); i += 2 * step) v[i] = b.CreateFAdd(v[i], v[i + step]);
      }
      b.CreateStore(v[0], acc[r]);
    }
  }
}

/// out += the sums of the rows of `in` along its innermost axis, one per lane of the register `out`: one
/// accumulator per row stepping through the rows, then the accumulators transposed and summed in a tree. Each
/// level pairs two registers of 2^l rows' partial sums (segments of p lanes each) into one whose segments are
/// half as wide: the two halves of every segment, A's segments then B's, added. Rows read from L2 go a few at a
/// time with several chains each where sum_runs_chains says so (`from`: the level of `in`).
void Kernels::sum_runs(const CView& in, const CView& out, Level from) {
  const std::vector<CView> rows = innermost_rows(in);
  const std::int64_t k = in.shape.back(), width = c.width();
  KRIEK_ASSERT(static_cast<std::int64_t>(rows.size()) <= width, "vec_sum_runs: ", rows.size(), " rows for ",
               width, " lanes");
  std::vector<Value*> ptr, acc;
  for (const CView& row : rows) {
    ptr.push_back(run(row, KernelKind::vec_sum_runs));
    acc.push_back(c.slot(vec()));
    b.CreateStore(llvm::Constant::getNullValue(vec()), acc.back());
  }
  // Rows a constant distance from the first (the usual case: rows of one buffer) are addressed from one
  // pointer with constant displacements, the pointer an induction variable of its own: no index register (an
  // add with an indexed memory operand is two micro-ops on Intel) and not a register per row. reducesum[axis=1]
  // 256x256 on Sapphire Rapids: LLVM/C 0.79 -> 0.82-0.93 (the rest is not this loop).
  const std::optional<std::vector<std::int64_t>> apart = rows_apart(rows);
  // The address of row r's element j: from the first row's address moving with the loop (a pointer of its own)
  // where the rows are a constant distance apart.
  const auto at = [&](std::size_t r, const Affine& j) -> Value* {
    if (!apart) return b.CreateInBoundsGEP(f32(), ptr[r], {c.index(j)});
    Coord first = zeros(rows.front().rank());
    first.back() = j;
    return b.CreateConstInBoundsGEP1_64(f32(), c.element(rows.front(), first),
                                        static_cast<std::uint64_t>((*apart)[r]));
  };
  if (sum_runs_peel(rows, k, width)) {
    peeled_rows(ptr, acc, k, from, rows_per_l1_set(rows));
  } else {
    rows_in_passes(at, acc, k / width, sum_runs_chains(k, width, from, rows_per_l1_set(rows)));
    for (std::size_t r = 0; r < rows.size() && k % width != 0; ++r) {  // the rows' partial last registers, masked
      Value* last = load_register(at(r, Affine(k - k % width)), k % width);
      b.CreateStore(b.CreateFAdd(b.CreateLoad(vec(), acc[r]), last), acc[r]);
    }
  }
  // Pinned here: otherwise LLVM sinks every call's transpose past the loops of the calls after it (their results
  // are read only at the tile's store), holding all accumulators at once and spilling them (reducesum[axis=1]
  // 256x256: 16 calls, 580 stack accesses, 0.8x C).
  std::vector<Value*> sums;
  for (Value* slot : acc) sums.push_back(b.CreateLoad(vec(), slot));
  llvm::InlineAsm* pin = llvm::InlineAsm::get(llvm::FunctionType::get(vec(), {vec()}, false), "", "=v,0", true);
  set(out, b.CreateFAdd(get(out), b.CreateCall(pin, {lane_sums(sums)})));
}

/// The register whose lane r is the sum of the lanes of regs[r] (at most one register's lanes of them), the
/// registers transposed and summed in a tree: each step adds pairs of registers, a's lanes folded into the first
/// half of each segment and b's into the second: a blend (either add port) plus one shuffle, where the two
/// shuffles of each half take only the shuffle port. In bit-reversed order, lane r ends as regs[r]'s sum;
/// missing registers are zeros, folded away.
Value* Kernels::lane_sums(const std::vector<Value*>& regs) {
  const std::int64_t width = c.width();
  KRIEK_ASSERT(static_cast<std::int64_t>(regs.size()) <= width, regs.size(), " registers for ", width, " lanes");
  const auto bits = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(width)) - 1);
  std::vector<Value*> level(static_cast<std::size_t>(width), llvm::Constant::getNullValue(vec()));
  for (std::size_t r = 0; r < regs.size(); ++r) level[bit_reverse(r, bits)] = regs[r];
  for (std::int64_t p = width; level.size() > 1; p /= 2) {
    std::vector<int> blend, swap;
    for (std::int64_t l = 0; l < width; ++l) {
      const bool first = l % p < p / 2;
      blend.push_back(static_cast<int>(first ? l : width + l));
      swap.push_back(static_cast<int>(first ? l + p / 2 : width + l - p / 2));
    }
    std::vector<Value*> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      next.push_back(b.CreateFAdd(b.CreateShuffleVector(level[i], level[i + 1], blend),
                                  b.CreateShuffleVector(level[i], level[i + 1], swap)));
    }
    level = std::move(next);
  }
  return level[0];
}

/// out += the sum of `in` over `axis` (not its innermost), out in registers: a loop over the axis, in which
/// every output register adds the input's register at the same place, the steps alternating between
/// sum_rows_sets accumulator sets (the first the output itself) that are added into the output at the end.
void Kernels::sum_rows(std::size_t axis, const CView& in, const CView& out) {
  const std::int64_t k = in.shape[axis];
  const std::int64_t registers = row_register_count(axis, in, out, c.width()), sets = sum_rows_sets(registers, k);
  // extra[s - 1][r]: register r's accumulator of set s > 0 (set 0 is the output itself).
  std::vector<std::vector<Value*>> extra(static_cast<std::size_t>(sets - 1));
  for (std::vector<Value*>& accumulators : extra) {
    for (std::int64_t r = 0; r < registers; ++r) {
      accumulators.push_back(c.slot(vec()));
      b.CreateStore(llvm::Constant::getNullValue(vec()), accumulators.back());
    }
  }
  const auto add_step = [&](const Affine& step, std::int64_t which) {
    std::size_t r = 0;
    for_each_row_register(axis, in, out, c.width(), step, [&](const CView& reg, const CView& part) {
      const std::int64_t lanes = volume(reg.shape);  // a whole register, or a panel row's partial last one
      Value* loaded = load_register(run(part, KernelKind::vec_sum_rows), lanes);
      if (which == 0) return set(reg, b.CreateFAdd(get(reg), loaded));
      Value* slot = extra[static_cast<std::size_t>(which - 1)][r++];
      b.CreateStore(b.CreateFAdd(b.CreateLoad(vec(), slot), loaded), slot);
    });
  };
  // Rounds of `sets` steps (a loop when there are several), then the steps left over into the output.
  const std::int64_t rounds = k / sets;
  const Affine j = rounds > 1 ? c.open_loop(rounds) * sets : Affine(0);
  for (std::int64_t which = 0; which < sets && rounds > 0; ++which) add_step(j + Affine(which), which);
  if (rounds > 1) c.close_loop();
  for (std::int64_t step = rounds * sets; step < k; ++step) add_step(Affine(step), 0);
  std::size_t r = 0;
  for_each_row_register(axis, in, out, c.width(), Affine(0), [&](const CView& reg, const CView&) {
    for (const std::vector<Value*>& accumulators : extra) {
      set(reg, b.CreateFAdd(get(reg), b.CreateLoad(vec(), accumulators[r])));
    }
    ++r;
  });
}

}  // namespace kriek::codegen
