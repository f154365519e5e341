// Problem parsing and printing, kriek's names for it, and the double-precision reference check (see problem.h).
#include "problem.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace bench {
namespace {

// "AxBxC" -> its extents (each a positive integer); empty on malformed text.
std::vector<int> extents(const std::string& text) {
  std::vector<int> v;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, 'x');) {
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return {};
    v.push_back(std::stoi(part));
    if (v.back() <= 0) return {};
  }
  if (!text.empty() && text.back() == 'x') return {};
  return v;
}

std::string join(std::initializer_list<int> v) {
  std::string s;
  for (int x : v) {
    if (!s.empty()) s += 'x';
    s += std::to_string(x);
  }
  return s;
}

// "NxHxWxC:FHxFWxF[:sS][:pP]" -> a conv problem.
bool parse_conv(const std::string& text, Problem& p) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ':');) parts.push_back(part);
  if (parts.size() < 2 || parts.size() > 4) return false;
  std::vector<int> img = extents(parts[0]), fil = extents(parts[1]);
  if (img.size() != 4 || fil.size() != 3) return false;
  p.op = Op::conv;
  p.batch = img[0], p.H = img[1], p.W = img[2], p.C = img[3];
  p.FH = fil[0], p.FW = fil[1], p.N = fil[2];
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const std::string& o = parts[i];
    std::vector<int> v = o.size() > 1 ? extents(o.substr(1)) : std::vector<int>{};
    bool zero_pad = o == "p0";
    if (o[0] == 's' && v.size() == 1) p.stride = v[0];
    else if (o[0] == 'p' && (v.size() == 1 || zero_pad)) p.pad = zero_pad ? 0 : v[0];
    else return false;
  }
  if (p.pad >= p.FH || p.pad >= p.FW || p.FH > p.H + 2 * p.pad || p.FW > p.W + 2 * p.pad) return false;
  p.OH = (p.H + 2 * p.pad - p.FH) / p.stride + 1;
  p.OW = (p.W + 2 * p.pad - p.FW) / p.stride + 1;
  p.M = p.OH * p.OW;
  p.K = p.FH * p.FW * p.C;
  return true;
}

// The reference of one output row (matmul: row i of batch b; conv: pixel (n, oh, ow)) and its error bound terms.
void reference_row(const Problem& p, const float* A, const float* B, std::int64_t row, std::vector<double>& ref,
                   std::vector<double>& bound) {
  std::fill(ref.begin(), ref.end(), 0.0);
  std::fill(bound.begin(), bound.end(), 0.0);
  auto accumulate = [&](double a, const float* b) {
    for (int j = 0; j < p.N; ++j) ref[j] += a * b[j], bound[j] += std::fabs(a * b[j]);
  };
  const std::int64_t b = row / p.M, i = row % p.M;
  switch (p.op) {
    case Op::matmul:
      for (int k = 0; k < p.K; ++k)
        accumulate(A[(b * p.M + i) * p.K + k], B + (b * p.K + k) * std::int64_t(p.N));
      return;
    case Op::conv: {
      const std::int64_t oh = i / p.OW, ow = i % p.OW;
      for (int fh = 0; fh < p.FH; ++fh) {
        const std::int64_t ih = oh * p.stride + fh - p.pad;
        for (int fw = 0; fw < p.FW; ++fw) {
          const std::int64_t iw = ow * p.stride + fw - p.pad;
          if (ih < 0 || ih >= p.H || iw < 0 || iw >= p.W) continue;
          const float* pixel = A + ((b * p.H + ih) * p.W + iw) * p.C;
          for (int c = 0; c < p.C; ++c) accumulate(pixel[c], B + ((std::int64_t(fh) * p.FW + fw) * p.C + c) * p.N);
        }
      }
      return;
    }
  }
}

}  // namespace

std::size_t Problem::a_size() const {
  return op == Op::conv ? std::size_t(batch) * H * W * C : std::size_t(batch) * M * K;
}
std::size_t Problem::b_size() const {
  return op == Op::conv ? std::size_t(FH) * FW * C * N : std::size_t(batch) * K * N;
}
std::size_t Problem::c_size() const { return std::size_t(batch) * M * N; }

std::string Problem::text() const {
  switch (op) {
    case Op::matmul:
      if (batch > 1) return join({batch, M, K, N});
      return M == K && K == N ? std::to_string(M) : join({M, K, N});
    case Op::conv: {
      std::string s = join({batch, H, W, C}) + ":" + join({FH, FW, N});
      if (stride != 1) s += ":s" + std::to_string(stride);
      if (pad != 0) s += ":p" + std::to_string(pad);
      return s;
    }
  }
  return "";
}

std::string Problem::kriek_spec() const {
  switch (op) {
    case Op::matmul:
      return "matmul " + (batch > 1 ? join({batch, M, K, N}) : join({M, K, N})) + " f32";
    case Op::conv: {
      std::string fields;
      if (stride != 1) fields += "stride=" + std::to_string(stride);
      if (pad != 0) fields += std::string(fields.empty() ? "" : ",") + "pad=" + std::to_string(pad);
      return "conv" + (fields.empty() ? "" : "[" + fields + "]") + " " + join({batch, H, W, C}) + " " +
             join({FH, FW, C, N}) + " f32";
    }
  }
  return "";
}

// One 64-byte line of f32 per panel row, the panels kriek packs into itself (Target::panel_elements): with AVX2,
// 16 columns measured 99.5 GFLOP/s against 95-96 for 8 on conv 1x14x14x256 1x1x256x256, 100 against 87 on
// matmul 256^3 (2026-11-24, Zen 3, 1 thread). A matmul's rhs of whole 64s of columns in panels of 64 instead: one
// 256-byte run per row, where panels of 16 columns lie K lines apart, and with K a multiple of 64 every panel a
// register tile reads starts in the same L1 set (kriek's own packing pads them a line apart, a caller's panels it
// reads as they are). Kernels of each, paired in one process (Cascade Lake VM, 2026-11-27), 64-column time over
// 16-column time, 1 / 2 threads: 256^3 0.90 / 0.96, 1024^3 0.90 / 0.92, 64x4096x64 0.91 / 0.99, 128x3072x768 0.93 /
// 0.94, 384x768x3072 0.94 / 0.94, 4096x64x64 0.99 / 1.03; where 64 does not divide N the padded panel lost
// (300x700x500 1.03 / 1.04, 150x129x77 1.03 / 1.04). Conv filters (blk3:64 against blk3:16) gained on the early
// ResNet layers (res2_3x3 0.92, res3a_3x3s2 0.91, 1 thread) and lost on the late ones (res5_3x3 1.08, res5a_3x3s2
// 1.07), so they keep panels of one line (which a search for the packed problem shares with the plain one's).
int Problem::kriek_pack_block() const { return op == Op::matmul && N % 64 == 0 ? 64 : 16; }

std::string Problem::kriek_packed_spec() const {
  // The long form: each operand "SHAPE f32 GL LAYOUT", B blocked on its last dimension. (An ostringstream: GCC 12
  // warns falsely (-Wrestrict) on strings assembled from literals here.)
  std::ostringstream s;
  const int block = kriek_pack_block();
  switch (op) {
    case Op::matmul: {
      const bool b = batch > 1;
      s << "matmul (" << (b ? join({batch, M, K}) : join({M, K})) << " f32 GL row, "
        << (b ? join({batch, K, N}) : join({K, N})) << " f32 GL blk" << (b ? 2 : 1) << ":" << block << " -> "
        << (b ? join({batch, M, N}) : join({M, N})) << " f32 GL row)";
      break;
    }
    case Op::conv: {
      const std::string spec = kriek_spec();
      s << spec.substr(0, spec.find(' ')) << " (" << join({batch, H, W, C}) << " f32 GL row, " << join({FH, FW, C, N})
        << " f32 GL blk3:" << block << " -> " << join({batch, OH, OW, N}) << " f32 GL row)";
      break;
    }
  }
  return s.str();
}

std::string Problem::kriek_symbol() const {
  switch (op) {
    case Op::matmul:
      if (batch > 1) return "kriek_matmul_" + join({batch, M, K}) + "_" + join({batch, K, N}) + "_f32";
      return "kriek_matmul_" + join({M, K}) + "_" + join({K, N}) + "_f32";
    case Op::conv: {
      std::string s = "kriek_conv_" + join({batch, H, W, C}) + "_" + join({FH, FW, C, N});
      if (stride != 1) s += "_s" + std::to_string(stride);
      if (pad != 0) s += "_p" + std::to_string(pad);
      return s + "_f32";
    }
  }
  return "";
}

bool parse_problem(const std::string& text, Problem& out) {
  Problem p;
  std::string body = text;
  if (std::size_t eq = text.find('='); eq != std::string::npos) {
    p.name = text.substr(0, eq), body = text.substr(eq + 1);
    if (p.name.empty() || p.name.find_first_of(" ,:") != std::string::npos) return false;
  }
  if (body.find(':') != std::string::npos) {
    if (!parse_conv(body, p)) return false;
  } else {
    std::vector<int> v = extents(body);
    if (v.size() == 1) p.M = p.K = p.N = v[0];
    else if (v.size() == 3) p.M = v[0], p.K = v[1], p.N = v[2];
    else if (v.size() == 4) p.batch = v[0], p.M = v[1], p.K = v[2], p.N = v[3];
    else return false;
  }
  out = p;
  return true;
}

double max_rel_err(const Problem& p, const float* A, const float* B, const float* C) {
  const std::int64_t total = std::int64_t(p.batch) * p.M;
  std::vector<std::int64_t> rows;
  if (total <= 128) {
    for (std::int64_t i = 0; i < total; ++i) rows.push_back(i);
  } else {
    for (int i = 0; i < 16; ++i) rows.push_back(i), rows.push_back(total - 1 - i);
    for (int s = 1; s <= 32; ++s) rows.push_back(total * s / 33);
  }
  std::vector<double> ref(p.N), bound(p.N);
  double worst = 0.0;
  for (std::int64_t row : rows) {
    reference_row(p, A, B, row, ref, bound);
    for (int j = 0; j < p.N; ++j) {
      double c = C[row * p.N + j];
      if (!std::isfinite(c)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, std::fabs(c - ref[j]) / std::max(bound[j], 1e-30));
    }
  }
  return worst;
}

double tolerance(const Problem& p) { return 2.0 * p.K * std::ldexp(1.0, -24); }

}  // namespace bench
