// The C of the summing kernels: dot_fma's and vec_sum_run's chained sums over dense runs, vec_sum_rows' sums
// along an outer axis, and vec_sum_runs' rows summed into the lanes of one register (the transpose tree both
// vec_sum_runs and a tile of dots use).
#include "codegen/c_sums.h"

#include <algorithm>

#include "codegen/c_kernels.h"
#include "codegen/kernel_views.h"
#include "impl/tiling.h"
#include "spec/error.h"

namespace kriek::codegen {
namespace {

/// The AVX2 register whose lane r is the sum of the lanes of acc[r] (8 accumulators of 8 lanes): pairwise
/// horizontal adds give each 128-bit half of two registers the sums of four rows' halves, and the halves are added
/// across.
std::string transpose_sum8(CWriter& w, const std::vector<std::string>& acc) {
  KRIEK_ASSERT(acc.size() == 8, acc.size(), " registers for 8 lanes");
  const std::string type = "__m256";
  std::vector<std::string> level = acc;
  while (level.size() > 2) {
    std::vector<std::string> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      next.push_back(w.fresh("t"));
      w.line(type + " " + next.back() + " = _mm256_hadd_ps(" + level[i] + ", " + level[i + 1] + ");");
    }
    level = next;
  }
  const std::string r = w.fresh("t");
  w.line(type + " " + r + " = _mm256_add_ps(_mm256_permute2f128_ps(" + level[0] + ", " + level[1] +
         ", 0x20), _mm256_permute2f128_ps(" + level[0] + ", " + level[1] + ", 0x31));");
  return r;
}

/// The 16-lane register whose lane r is the sum of the lanes of regs[r] (at most 16; missing ones are zeros), as
/// the LLVM backend's lane_sums: each level adds pairs of registers, a's lanes folded into the first half of each
/// segment and b's into the second, by a blend (either add port) and one two-register shuffle (the shuffle
/// port); in bit-reversed order, lane r ends as regs[r]'s sum. 15 blends, shuffles and adds, where two 8-lane
/// trees take 44 shuffles and 30 adds (reducesum[axis=1] 64x64 in L1: 1.3x the time).
std::string lane_sums16(CWriter& w, const std::vector<std::string>& regs) {
  KRIEK_ASSERT(regs.size() <= 16, regs.size(), " registers for 16 lanes");
  std::vector<std::string> level(16);
  for (std::size_t r = 0; r < regs.size(); ++r) level[bit_reverse(r, 4)] = regs[r];
  for (std::string& reg : level) {
    if (reg.empty()) reg = "_mm512_setzero_ps()";
  }
  for (int p = 16; level.size() > 1; p /= 2) {
    unsigned mask = 0;
    std::string index;  // _mm512_set_epi32 lists lane 15 first
    for (int l = 15; l >= 0; --l) {
      const bool first = l % p < p / 2;
      if (!first) mask |= 1u << l;
      index += std::to_string(first ? l + p / 2 : 16 + l - p / 2) + (l > 0 ? ", " : "");
    }
    const std::string idx = w.fresh("idx");
    w.line("const __m512i " + idx + " = _mm512_set_epi32(" + index + ");");
    std::vector<std::string> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      next.push_back(w.fresh("t"));
      w.line("const __m512 " + next.back() + " = _mm512_add_ps(_mm512_mask_blend_ps((__mmask16)" +
             std::to_string(mask) + "u, " + level[i] + ", " + level[i + 1] + "), _mm512_permutex2var_ps(" +
             level[i] + ", " + idx + ", " + level[i + 1] + "));");
    }
    level = std::move(next);
  }
  return level[0];
}

/// vec_sum_runs' rows summed width / chains at a time (sum_runs_chains), `chains` accumulators each (the first the
/// row's own, acc[r]) stepping through the `registers` whole registers from ptr[r] in a C loop, the registers left
/// over one per chain, then each row's chains added pairwise into acc[r]. One chain: every row in one loop, one
/// add per register.
void rows_in_passes(CWriter& w, const VectorIsa& isa, const std::vector<std::string>& ptr,
                    const std::vector<std::string>& acc, std::int64_t registers, std::int64_t chains) {
  if (registers == 0) return;
  const std::int64_t width = isa.width, looped = registers / chains * chains;
  const auto group = static_cast<std::size_t>(width / chains);
  for (std::size_t first = 0; first < ptr.size(); first += group) {
    const std::size_t last = std::min(ptr.size(), first + group);
    w.open("");
    // chain[r - first][c]: chain c of row r (chain 0 is acc[r]).
    std::vector<std::vector<std::string>> chain(last - first);
    for (std::size_t r = first; r < last; ++r) {
      chain[r - first].push_back(acc[r]);
      for (std::int64_t c = 1; c < chains; ++c) {
        chain[r - first].push_back(w.fresh("acc"));
        w.line(isa.type + " " + chain[r - first].back() + " = " + isa.zero + "();");
      }
    }
    const auto add = [&](std::size_t r, std::int64_t c, const std::string& value) {
      const std::string& x = chain[r - first][static_cast<std::size_t>(c)];
      w.line(x + " = " + isa.add + "(" + x + ", " + value + ");");
    };
    const std::string j = w.fresh("j");
    w.open("for (int64_t " + j + " = 0; " + j + " < " + std::to_string(looped * width) + "; " + j + " += " +
           std::to_string(chains * width) + ")");
    for (std::size_t r = first; r < last; ++r) {
      for (std::int64_t c = 0; c < chains; ++c) {
        add(r, c, isa.load + "(" + ptr[r] + " + " + j + (c > 0 ? " + " + std::to_string(c * width) : "") + ")");
      }
    }
    w.close();
    for (std::size_t r = first; r < last; ++r) {
      for (std::int64_t i = looped; i < registers; ++i) {
        add(r, i - looped, isa.load + "(" + ptr[r] + " + " + std::to_string(i * width) + ")");
      }
      std::vector<std::string>& sum = chain[r - first];
      for (std::size_t step = 1; step < sum.size(); step *= 2) {
        for (std::size_t i = 0; i + step < sum.size(); i += 2 * step) {
          w.line(sum[i] + " = " + isa.add + "(" + sum[i] + ", " + sum[i + step] + ");");
        }
      }
    }
    w.close();
  }
}

}  // namespace

/// outs[s] += the sum over k elements of dense runs: for dot_fma the dot of row s / n of `rows` and column s % n of
/// `cols`, for vec_sum_run (`cols` empty) its one row alone; each sum in dot_fma_chains vector accumulators
/// stepping through the runs' whole registers in one C loop (every run loaded once per step), a partial last
/// register masked, then its chains summed, then its lanes.
void chained_sums(CWriter& w, const VectorIsa& isa, KernelKind kind, const std::vector<CView>& rows,
                  const std::vector<CView>& cols, const std::vector<CView>& outs) {
  const std::int64_t k = rows.front().shape.back(), width = isa.width, whole = k - k % width;
  const std::size_t n = std::max<std::size_t>(1, cols.size());
  const std::int64_t chains =
      dot_fma_chains(static_cast<std::int64_t>(outs.size()), std::max<std::int64_t>(1, k / width));
  const std::string j = w.fresh("j");
  w.open("");
  std::vector<std::string> pa, pb;
  for (const CView& row : rows) {
    pa.push_back(w.fresh("pa"));
    w.line("const float *" + pa.back() + " = " + run_address(row, kind) + ";");
  }
  for (const CView& col : cols) {
    pb.push_back(w.fresh("pb"));
    w.line("const float *" + pb.back() + " = " + run_address(col, kind) + ";");
  }
  // acc[s][c]: chain c of sum s.
  std::vector<std::vector<std::string>> acc(outs.size());
  for (std::vector<std::string>& sum : acc) {
    for (std::int64_t c = 0; c < chains; ++c) {
      sum.push_back(w.fresh("acc"));
      w.line(isa.type + " " + sum.back() + " = " + isa.zero + "();");
    }
  }
  // One step at `at` on chain c, `lanes` lanes of each run (the rest of a partial last register loads zero).
  const auto step = [&](const std::string& at, std::int64_t c, std::int64_t lanes) {
    const auto load = [&](const std::vector<std::string>& p, std::vector<std::string>& regs) {
      regs.clear();
      for (const std::string& base : p) {
        regs.push_back(w.fresh("v"));
        const std::string address = base + " + " + at;
        w.line("const " + isa.type + " " + regs.back() + " = " +
               (lanes == width ? isa.load + "(" + address + ")" : masked_load(isa, address, lanes)) + ";");
      }
    };
    std::vector<std::string> va, vb;
    load(pa, va);
    load(pb, vb);
    for (std::size_t s = 0; s < outs.size(); ++s) {
      const std::string& x = acc[s][static_cast<std::size_t>(c)];
      w.line(x + " = " +
             (cols.empty() ? isa.add + "(" + x + ", " + va[s / n] + ")"
                           : isa.fmadd + "(" + va[s / n] + ", " + vb[s % n] + ", " + x + ")") +
             ";");
    }
  };
  if (whole > 0) {
    w.open("for (int64_t " + j + " = 0; " + j + " < " + std::to_string(whole) + "; " + j + " += " +
           std::to_string(chains * width) + ")");
    for (std::int64_t c = 0; c < chains; ++c) step(j + " + " + std::to_string(c * width), c, width);
    w.close();
  }
  if (whole < k) step(std::to_string(whole), 0, k - whole);  // the runs' partial last register, masked
  for (std::vector<std::string>& sum : acc) {  // each sum's chains added pairwise
    for (std::size_t step = 1; step < sum.size(); step *= 2) {
      for (std::size_t i = 0; i + step < sum.size(); i += 2 * step) {
        w.line(sum[i] + " = " + isa.add + "(" + sum[i] + ", " + sum[i + step] + ");");
      }
    }
  }
  if (dot_fma_tree(static_cast<std::int64_t>(outs.size()), width)) {
    // A register of sums at a time, transposed into the lanes of two (AVX-512) or one (AVX2) 8-lane registers.
    std::string zero;  // the missing sums of a last partial group
    if (outs.size() % static_cast<std::size_t>(width) != 0) {
      zero = w.fresh("z");
      w.line("const " + isa.type + " " + zero + " = " + isa.zero + "();");
    }
    for (std::size_t first = 0; first < outs.size(); first += static_cast<std::size_t>(width)) {
      std::vector<std::string> group;
      for (std::size_t s = first; s < first + static_cast<std::size_t>(width); ++s) {
        group.push_back(s < outs.size() ? acc[s][0] : zero);
      }
      const std::string lanes = w.fresh("lanes");
      w.line("float " + lanes + "[" + std::to_string(width) + "];");
      if (width == 8) {
        w.line("_mm256_storeu_ps(" + lanes + ", " + transpose_sum8(w, group) + ");");
      } else {
        w.line("_mm512_storeu_ps(" + lanes + ", " + lane_sums16(w, group) + ");");
      }
      for (std::size_t s = first; s < std::min(outs.size(), first + static_cast<std::size_t>(width)); ++s) {
        w.line(element(outs[s], zeros(outs[s].rank())) + " += " + lanes + "[" + std::to_string(s - first) + "];");
      }
    }
    w.close();
    return;
  }
  for (std::size_t s = 0; s < outs.size(); ++s) {
    std::vector<std::string>& sum = acc[s];
    const std::string out = element(outs[s], zeros(outs[s].rank()));
    if (!isa.reduce_add.empty()) {
      w.line(out + " += " + isa.reduce_add + "(" + sum[0] + ");");
    } else {
      const std::string lanes = w.fresh("lanes");
      w.line("float " + lanes + "[" + std::to_string(width) + "];");
      w.line(isa.store + "(" + lanes + ", " + sum[0] + ");");
      std::string total = lanes + "[0]";
      for (std::int64_t i = 1; i < width; ++i) total += " + " + lanes + "[" + std::to_string(i) + "]";
      w.line(out + " += " + total + ";");
    }
  }
  w.close();
}

/// out += the sum of `in` over `axis` (not its innermost), out in registers: a C loop over the axis, in which
/// every output register adds the input's register at the same place, the steps alternating between
/// sum_rows_sets accumulator sets (the first the output itself) that are added into the output at the end.
void sum_rows(CWriter& w, const VectorIsa& isa, std::size_t axis, const CView& in, const CView& out) {
  const std::int64_t k = in.shape[axis];
  const std::int64_t registers = row_register_count(axis, in, out, isa.width), sets = sum_rows_sets(registers, k);
  w.open("");
  // extra[s - 1][r]: register r's accumulator of set s > 0 (set 0 is the output itself).
  std::vector<std::vector<std::string>> extra(static_cast<std::size_t>(sets - 1));
  for (std::vector<std::string>& accumulators : extra) {
    for (std::int64_t r = 0; r < registers; ++r) {
      accumulators.push_back(w.fresh("acc"));
      w.line(isa.type + " " + accumulators.back() + " = " + isa.zero + "();");
    }
  }
  const auto add_step = [&](const Affine& step, std::int64_t which) {
    std::size_t r = 0;
    for_each_row_register(axis, in, out, isa.width, step, [&](const CView& out_reg, const CView& run) {
      const std::string reg = which == 0 ? whole_register(out_reg) : extra[static_cast<std::size_t>(which - 1)][r++];
      const std::int64_t lanes = volume(out_reg.shape);  // a whole register, or a panel row's partial last one
      w.line(reg + " = " + isa.add + "(" + reg + ", " + load_register(isa, run, KernelKind::vec_sum_rows, lanes) +
             ");");
    });
  };
  // Rounds of `sets` steps (a C loop when there are several), then the steps left over into the output.
  const std::int64_t rounds = k / sets;
  Affine j(0);
  if (rounds > 1) {
    const std::string name = w.fresh("j");
    w.open("for (int64_t " + name + " = 0; " + name + " < " + std::to_string(rounds * sets) + "; " + name +
           " += " + std::to_string(sets) + ")");
    j = Affine::variable(name);
  }
  for (std::int64_t which = 0; which < sets && rounds > 0; ++which) add_step(j + Affine(which), which);
  if (rounds > 1) w.close();
  for (std::int64_t step = rounds * sets; step < k; ++step) add_step(Affine(step), 0);
  std::size_t r = 0;
  for_each_row_register(axis, in, out, isa.width, Affine(0), [&](const CView& out_reg, const CView&) {
    const std::string reg = whole_register(out_reg);
    for (const std::vector<std::string>& accumulators : extra) {
      w.line(reg + " = " + isa.add + "(" + reg + ", " + accumulators[r] + ");");
    }
    ++r;
  });
  w.close();
}

/// out += the sums of the rows of `in` along its innermost axis, one per lane of the register `out`: one
/// accumulator per row stepping through the rows' whole registers in a C loop, then their partial last ones
/// (masked), then transpose_sum8 (AVX2) or lane_sums16. Where sum_runs_peel says so, each row starts at its
/// first cache line instead: the lanes before it masked, m whole registers that every row has, then the rest (0 to
/// 30 lanes) in two masked loads, masks made from counts ((1 << n) - 1, n <= 16). Rows read from L2 go a few at a
/// time with several chains each where sum_runs_chains says so (rows_in_passes; `from`: the level of `in`).
void sum_runs(CWriter& w, const VectorIsa& isa, const CView& in, const CView& out, Level from) {
  const std::vector<CView> rows = innermost_rows(in);
  KRIEK_ASSERT(static_cast<std::int64_t>(rows.size()) <= isa.width && (isa.width == 8 || isa.width == 16),
               "vec_sum_runs: ", rows.size(), " rows for registers of ", isa.width, " lanes");
  const std::int64_t k = in.shape.back();
  const bool peel = sum_runs_peel(rows, k, isa.width);
  w.open("");
  std::vector<std::string> ptr, acc, rest;
  for (const CView& row : rows) {
    ptr.push_back(w.fresh("pa"));
    acc.push_back(w.fresh("acc"));
    w.line("const float *" + ptr.back() + " = " + run_address(row, KernelKind::vec_sum_runs) + ";");
    w.line(isa.type + " " + acc.back() + " = " + isa.zero + "();");
  }
  const auto first_lanes = [](const std::string& n) { return "(__mmask16)((1u << (" + n + ")) - 1u)"; };
  // Whole registers in the loop: from each row's start, or (peeled) from its first cache line on.
  const std::int64_t whole = peel ? (k - (isa.width - 1)) / isa.width * isa.width : k - k % isa.width;
  if (peel) {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const std::string head = w.fresh("head");
      rest.push_back(w.fresh("rest"));
      w.line("const int64_t " + head + " = (int64_t)((-(uintptr_t)" + ptr[r] + " & 63u) >> 2);");
      w.line(acc[r] + " = _mm512_maskz_loadu_ps(" + first_lanes(head) + ", " + ptr[r] + ");");
      w.line(ptr[r] + " += " + head + ";");
      w.line("const int64_t " + rest.back() + " = " + std::to_string(k - whole) + " - " + head + ";");
    }
  }
  rows_in_passes(w, isa, ptr, acc, whole / isa.width,
                 sum_runs_chains(whole, isa.width, from, rows_per_l1_set(rows)));
  for (std::size_t r = 0; r < rows.size() && (peel || whole < k); ++r) {
    const std::string at = ptr[r] + " + " + std::to_string(whole);
    if (!peel) {
      w.line(acc[r] + " = " + isa.add + "(" + acc[r] + ", " + masked_load(isa, at, k - whole) + ");");
      continue;
    }
    const std::string& n = rest[r];
    const std::string width = std::to_string(isa.width);
    w.line(acc[r] + " = " + isa.add + "(" + acc[r] + ", _mm512_maskz_loadu_ps(" +
           first_lanes(n + " < " + width + " ? " + n + " : " + width) + ", " + at + "));");
    w.line(acc[r] + " = " + isa.add + "(" + acc[r] + ", _mm512_maskz_loadu_ps(" +
           first_lanes(n + " < " + width + " ? 0 : " + n + " - " + width) + ", " + at + " + " + width + "));");
  }
  const std::string reg = whole_register(out);
  if (isa.width == 8) {
    for (std::int64_t r = static_cast<std::int64_t>(rows.size()); r < isa.width; ++r) {  // a partial register
      acc.push_back(w.fresh("acc"));
      w.line(isa.type + " " + acc.back() + " = " + isa.zero + "();");
    }
    w.line(reg + " = " + isa.add + "(" + reg + ", " + transpose_sum8(w, acc) + ");");
  } else {
    w.line(reg + " = " + isa.add + "(" + reg + ", " + lane_sums16(w, acc) + ");");
  }
  w.close();
}

}  // namespace kriek::codegen
