// conv_geometry: the extents of a Conv's three forms and the user errors of bad ones.
#include "spec/conv_geometry.h"

#include <algorithm>
#include <utility>

#include "spec/error.h"

namespace kriek {

ConvGeometry conv_geometry(const Conv& conv, const Shape& img, const Shape& f) {
  ConvGeometry g;
  g.rank = img.size();
  if (g.rank < 2 || g.rank > 4) user_error("conv image must be rank 2, 3 or 4, got ", shape_text(img));
  const std::size_t want_f = g.rank == 2 ? 3 : 4;
  if (f.size() != want_f) {
    user_error("conv filters for a rank-", g.rank, " image must be rank ", want_f, ", got ", shape_text(f));
  }
  g.row_dim = conv_row_dim(g.rank);
  if (g.rank >= 3 && img[g.rank - 1] != f[2]) {
    user_error("conv channels disagree: image ", shape_text(img), " has ", img[g.rank - 1], ", filters ",
               shape_text(f), " have ", f[2]);
  }
  g.batch = g.rank == 4 ? img[0] : 1;
  g.h = img[g.row_dim];
  g.w = img[g.row_dim + 1];
  g.c = g.rank >= 3 ? img[g.rank - 1] : 1;
  g.fh = f[0];
  g.fw = f[1];
  g.f = f.back();
  const char* names[2] = {"rows", "columns"};
  for (std::size_t s = 0; s < 2; ++s) {
    g.stride[s] = conv.stride[s];
    g.pad[s] = conv.pad[s];
    if (g.stride[s] < 1) user_error("conv stride ", g.stride[s], " along ", names[s], " must be at least 1");
    if (g.pad[s] >= g.filter(s)) {
      user_error("conv padding ", g.pad[s], " along ", names[s], " is not smaller than the filter's ", g.filter(s),
                 " ", names[s]);
    }
  }
  if (g.fh > g.h + 2 * g.pad[0] || g.fw > g.w + 2 * g.pad[1]) {
    user_error("conv filters ", shape_text(f), " are larger than the image ", shape_text(img),
               g.pad[0] || g.pad[1] ? " padded by " + std::to_string(g.pad[0]) + "x" + std::to_string(g.pad[1]) : "");
  }
  g.oh = (g.h + 2 * g.pad[0] - g.fh) / g.stride[0] + 1;
  g.ow = (g.w + 2 * g.pad[1] - g.fw) / g.stride[1] + 1;
  return g;
}

const Conv* leading_conv(const Op& op) {
  if (const auto* conv = std::get_if<Conv>(&op)) return conv;
  const auto* c = std::get_if<Compose>(&op);
  if (c == nullptr || c->stages.empty() || !std::holds_alternative<Conv>(c->stages.front())) return nullptr;
  const bool epilogue = std::all_of(c->stages.begin() + 1, c->stages.end(), is_elementwise);
  return epilogue ? &std::get<Conv>(c->stages.front()) : nullptr;
}

Conv* leading_conv(Op& op) { return const_cast<Conv*>(leading_conv(std::as_const(op))); }

}  // namespace kriek
