// Views in the generated code (C or LLVM IR; the lowering passes them to both emitters): the generator's counterpart of the interpreter's View (impl/view.h). A view is a
// window of static shape at an affine origin in a real buffer: memory (a `float *` variable), scalar registers (a
// local `float` array) or vector registers (one vector variable per register, `v3_0`, `v3_1`, ...). Element
// access goes through the buffer's Layout exactly as in the interpreter, so emitted code and interpreter agree
// on where every element lives, and views that walk their buffer with steps or drop unit dimensions
// (`dims`, reshaped by impl/view.h's `reshaped`) do so by the same rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/affine.h"
#include "impl/view.h"
#include "spec/layout.h"
#include "spec/level.h"

namespace kriek::codegen {

enum class Storage : std::uint8_t { memory, scalar_registers, vector_registers };

/// Where a tensor of level `l` lives in the emitted C.
Storage storage_of(Level l);

using Coord = std::vector<Affine>;

struct CView {
  Storage storage = Storage::memory;
  /// Memory: a `float *` expression; scalar registers: the array; vector registers: the variables' prefix.
  std::string base;
  Shape buffer;  ///< the whole buffer's shape
  Layout layout;
  Coord origin;  ///< where the view starts in the buffer (one entry per buffer dimension)
  Shape shape;   ///< the view's extents
  std::uint32_t vector_size = 0;  ///< elements per register (vector registers only)
  /// How each view dimension walks the buffer (impl/view.h's rule); empty: dimension d walks buffer dimension d.
  std::vector<ViewDim> dims;

  std::size_t rank() const { return shape.size(); }
  /// The sub-view at `offset` (relative to this view) of shape `extents`.
  CView sub(const Coord& offset, const Shape& extents) const;
};

/// A view of a whole buffer.
CView whole(Storage storage, std::string base, const Shape& shape, const Layout& layout, std::uint32_t vector_size = 0);

/// The buffer offset of `index` (relative to the view's origin) when it is affine in the loop variables (always
/// for row- and column-major; for blocked layouts when the blocked coordinate's variable part is a multiple of the
/// block), else nullopt.
std::optional<Affine> affine_offset(const CView& v, const Coord& index);
/// The buffer offset of `index` in a blocked layout where it is not affine: ((c / block) * panel + rest) * block
/// + c % block, for the blocked coordinate c, the elements of a panel row `panel` and the other coordinates'
/// row-major offset `rest`.
struct BlockedOffset {
  Affine coordinate;
  std::int64_t block = 1;
  std::int64_t panel = 1;
  Affine rest;
};
BlockedOffset blocked_offset(const CView& v, const Coord& index);
/// The buffer offset of `index` as C text (with `/` and `%` where it is not affine).
std::string offset_text(const CView& v, const Coord& index);

/// An lvalue for one element of a memory or scalar-register view, e.g. `lhs[64*i0 + k1]` or `r3[0]`.
std::string element(const CView& v, const Coord& index);
/// The address of one element of a memory view, e.g. `(lhs + 64*i0 + 16)`.
std::string address(const CView& v, const Coord& index);
/// True when the view's elements, in row-major order of its shape, occupy consecutive buffer offsets (checked
/// exactly; false when an offset is not affine).
bool is_dense_run(const CView& v);
/// The index of the vector register that holds exactly the view's elements in lane order, from its first lane (the
/// whole register, or the partial register that ends a row in register panels); asserts that one does.
std::int64_t register_index(const CView& v);
/// True when the view is the partial last register of a row in register panels (impl/tiling.h's register_panels):
/// fewer elements than a register, the rest of the register padding. Kernels load and store it masked.
bool partial_register(const CView& v);
/// The vector variable that holds exactly the view's elements in lane order (`<base>_<register_index>`).
std::string whole_register(const CView& v);

/// A zero coordinate of rank `rank`.
Coord zeros(std::size_t rank);
/// The constant coordinate `at`.
Coord constant(const Shape& at);

}  // namespace kriek::codegen
