// What the benchmark computes: one Problem (a plain or batched row-major FP32 matmul, or an NHWC FP32 convolution
// with stride and zero padding), how it is written on the command line, how kriek states it (spec text and kernel
// name), and the reference check every runner's output goes through.
#pragma once

#include <string>

namespace bench {

enum class Op { matmul, conv };

/// Matmul: C[b][M,N] = A[b][M,K] · B[b][K,N] for b < batch (batch 1 = a plain matmul).
/// Conv: out[n][oh][ow][f] = Σ image[n][oh·stride + fh - pad][ow·stride + fw - pad][c] · filters[fh][fw][c][f],
/// image N x H x W x C (NHWC), filters FH x FW x C x F (HWIO, kriek's order), out N x OH x OW x F; image elements
/// outside H x W read as 0; OH = (H + 2·pad - FH) / stride + 1 rounded down, OW likewise.
/// Both share the GEMM view: batch = B or N, M = rows per batch (OH·OW for a conv), K = the reduction length
/// (FH·FW·C), N = the output columns (F); flops = 2·batch·M·K·N (a conv counts the taps that read padding too,
/// as benchdnn does).
struct Problem {
  Op op = Op::matmul;
  int batch = 1, M = 0, K = 0, N = 0;
  int H = 0, W = 0, C = 0, FH = 0, FW = 0, stride = 1, pad = 0, OH = 0, OW = 0;  // conv only
  std::string name;  // an optional label (a CNN layer's name), from "NAME=" before the text

  double flops() const { return 2.0 * batch * M * K * N; }
  std::size_t a_size() const;  // elements of A (the image)
  std::size_t b_size() const;  // elements of B (the filters)
  std::size_t c_size() const;  // elements of C (the output)
  /// The command-line form: "n" (n x n x n), "MxKxN", "BxMxKxN", or a conv "NxHxWxC:FHxFWxF[:sS][:pP]".
  std::string text() const;
  /// name when set, else text(): the label of tables.
  std::string label() const { return name.empty() ? text() : name; }
  /// kriek's spec text, e.g. "matmul 4x64x64x64 f32", "conv[stride=2,pad=1] 1x56x56x64 3x3x64x64 f32".
  std::string kriek_spec() const;
  /// The entry point a kriek kernel library holds for this problem: kriek_matmul_MxK_KxN_f32 (as `kriek emit`
  /// names a matmul), kriek_matmul_BxMxK_BxKxN_f32, kriek_conv_NxHxWxC_FHxFWxCxF[_sS][_pP]_f32.
  std::string kriek_symbol() const;
  /// The same problem with B pre-packed: the filters (or the rhs) in kriek's blocked layout on their last
  /// dimension, kriek_pack_block() columns per panel (oneDNN's Ohwi16o for filters), in the long spec form;
  /// its kernel is kriek_symbol() + "_pk".
  std::string kriek_packed_spec() const;
  /// The panel width of pre-packed B: a matmul's rhs whose columns are whole 64s in panels of 64 (256-byte rows,
  /// oneDNN's BA16a64b), anything else in panels of one cache line of f32.
  int kriek_pack_block() const;
  std::string kriek_packed_symbol() const { return kriek_symbol() + "_pk"; }

  friend bool operator==(const Problem& a, const Problem& b) { return a.text() == b.text(); }
};

/// Parses the command-line form (see Problem::text, with an optional "NAME=" prefix); returns false on malformed
/// text or a convolution that does not fit (stride 0, padding not smaller than the filter, filter larger than the
/// padded image).
bool parse_problem(const std::string& text, Problem& out);

/// Max over checked outputs of |C - R| / Σ |a·b| over the reduction (R in double): the error relative to the
/// componentwise bound, which any correct FP32 summation order keeps under about K · 2^-24 (see tolerance()).
/// Rows checked (a matmul row of one batch, a conv output pixel): all when there are at most 128, else the first
/// and last 16 and 32 spread between (remainder tiles live at the edges). Infinity when C holds a NaN or inf.
double max_rel_err(const Problem& p, const float* A, const float* B, const float* C);

/// The largest max_rel_err a correct result may have: 2 · K · 2^-24.
double tolerance(const Problem& p);

}  // namespace bench
