// Tiles' contiguity and alignment: alignment follows from where tiles start (the loop's step), not from the
// tile's own shape, which differs for boundary tiles and convolution halos.
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/cost.h"
#include "impl/tiling.h"

using namespace kriek;
using namespace kriek::test;

TEST_CASE("a tile starting at multiples of an aligned step is aligned", "[tiling]") {
  CHECK(tile_tensor(ts({8, 16}), {2, 16}).aligned);
  CHECK(tile_tensor(ts({8, 16}), {2, 16}).contiguous);
  CHECK_FALSE(tile_tensor(ts({8, 16}), {2, 8}).contiguous);
  CHECK_FALSE(tile_tensor(ts({9, 4}), {5, 4}).aligned);  // rows of 16 bytes, steps of 80
}

TEST_CASE("a boundary tile is aligned only when the full tile's step is", "[tiling]") {
  // 9 rows of 16 bytes in tiles of 5 rows: the remainder of 4 rows (64 bytes) starts at byte 80.
  CHECK_FALSE(tile_tensor(ts({9, 4}), {4, 4}, {5, 4}).aligned);
  const Spec s = matmul(ts({9, 4}), ts({4, 4}), ts({9, 4}), true);
  const Spec boundary = loop_body_spec(s, matmul_tile(s, 5, 4), 1);
  CHECK(boundary.output().shape == Shape{4, 4});
  CHECK_FALSE(boundary.output().aligned);
}

TEST_CASE("a convolution halo does not make a tile aligned", "[tiling]") {
  // Tiles of 2 rows plus a halo of 2: shape 4 rows (64 bytes) but steps of 2 rows (32 bytes).
  CHECK_FALSE(tile_tensor(ts({10, 4}), {4, 4}, {2, 4}).aligned);
  CHECK(tile_tensor(ts({10, 16}), {4, 16}, {2, 16}).aligned);
}

TEST_CASE("blocked tiles: panel steps and row steps", "[tiling]") {
  const TensorSpec b = ts({4, 32}, Level::GL, Layout::blocked(1, 16));
  CHECK(tile_tensor(b, {4, 16}).aligned);
  CHECK(tile_tensor(b, {4, 16}).contiguous);
  CHECK(tile_tensor(b, {1, 32}).aligned);  // a row of a panel is 16 floats, 64 bytes
  CHECK_FALSE(tile_tensor(b, {4, 8}).aligned);
  CHECK_FALSE(tile_tensor(ts({4, 32}, Level::GL, Layout::blocked(1, 4)), {1, 32}).aligned);
}

TEST_CASE("contiguity: one partial dimension with the outer ones of extent 1", "[tiling]") {
  CHECK(tile_is_contiguous({8, 16}, {1, 8}, Layout::row_major()));
  CHECK_FALSE(tile_is_contiguous({8, 16}, {2, 8}, Layout::row_major()));
  CHECK(tile_is_contiguous({8, 16}, {4, 1}, Layout::col_major()));
  CHECK_FALSE(tile_is_contiguous({8, 16}, {4, 2}, Layout::col_major()));
  CHECK(tile_is_contiguous({4, 32}, {4, 16}, Layout::blocked(1, 16)));
  CHECK_FALSE(tile_is_contiguous({4, 32}, {2, 16}, Layout::blocked(1, 16)));
}

TEST_CASE("a slide body's image tile steps by the output tile, not by the window", "[tiling]") {
  const Spec s{Conv{}, {ts({10, 4}), ts({3, 1, 1}), ts({8, 4, 1})}, false};
  Loop l;
  l.axes = {{8, 2}};
  l.operands = {{DimMap{0, 2}, DimMap{-1, 0}}, dims({-1, -1, -1}), dims({0, -1, -1})};
  const Spec body = loop_body_spec(s, l, 0);
  CHECK(body.input(0).shape == Shape{4, 4});
  CHECK_FALSE(body.input(0).aligned);  // windows start every 2 rows of 16 bytes
}

TEST_CASE("a run along the innermost dimension of a strided tensor is contiguous", "[tiling]") {
  TensorSpec strided = ts({6, 64});
  strided.contiguous = false;  // e.g. a 6x64 tile of a 1024-wide matrix
  CHECK(tile_tensor(strided, {1, 16}).contiguous);
  CHECK(tile_tensor(strided, {1, 64}).contiguous);
  CHECK_FALSE(tile_tensor(strided, {2, 16}).contiguous);
  CHECK_FALSE(tile_tensor(strided, {2, 64}).contiguous);  // whole rows, but the rows are apart
  TensorSpec col = ts({16, 6}, Level::GL, Layout::col_major());
  col.contiguous = false;
  CHECK(tile_tensor(col, {16, 1}).contiguous);
  CHECK_FALSE(tile_tensor(col, {1, 6}).contiguous);
  CHECK(is_unit_stride_run({1, 1, 5}, Layout::row_major()));
  CHECK_FALSE(is_unit_stride_run({1, 5}, Layout::blocked(1, 16)));
}

TEST_CASE("a tile inside one block of a blocked tensor is contiguous", "[tiling]") {
  TensorSpec b = ts({256, 64}, Level::L2, Layout::blocked(1, 16));
  b.contiguous = false;
  CHECK(tile_tensor(b, {1, 16}).contiguous);           // one row of one panel
  CHECK(tile_tensor(b, {1, 8}).contiguous);            // half of one, steps of 8 stay inside
  CHECK_FALSE(tile_tensor(b, {1, 32}).contiguous);     // two panels
  CHECK_FALSE(tile_tensor(b, {2, 16}).contiguous);     // two rows of a strided panel set
  CHECK_FALSE(tile_tensor(b, {1, 8}, {1, 12}).contiguous);  // steps of 12 cross panel boundaries
  b.aligned = false;                                    // the tensor may start inside a panel
  CHECK_FALSE(tile_tensor(b, {1, 16}).contiguous);
}

TEST_CASE("a tile inside one panel wider than a cache line is contiguous and moves to registers", "[tiling]") {
  // blk1:64 of f32: panels of 256 bytes, four registers to a panel row.
  TensorSpec b = ts({512, 256}, Level::L2, Layout::blocked(1, 64));
  b.contiguous = false;
  const TensorSpec row = tile_tensor(b, {1, 256});  // four panels' rows: each register's 16 lanes in one of them
  CHECK_FALSE(row.contiguous);
  CHECK(row.aligned);
  CHECK(register_rows_dense(row, 16));
  CHECK(register_panels_dense(tile_tensor(b, {1, 40}, {1, 64}), 16));  // 16, 16 and a masked 8 in one panel
  const TensorSpec quarter = tile_tensor(row, {1, 16});  // one register of one panel row
  CHECK(quarter.contiguous);
  CHECK_FALSE(quarter.aligned);                        // not at a panel boundary
  CHECK(tile_tensor(row, {1, 64}).contiguous);         // a whole panel row
  CHECK_FALSE(tile_tensor(row, {1, 16}, {1, 48}).contiguous);  // steps of 48 cross panel boundaries
  CHECK(register_rows_dense(quarter, 16));             // one gap-free run of 16: one register
  TensorSpec inside = row;
  inside.aligned = false;  // a row that may start inside a panel: its registers may straddle two
  CHECK_FALSE(register_rows_dense(inside, 16));
  CHECK_FALSE(register_panels_dense(inside, 16));
  CHECK_FALSE(tile_tensor(inside, {1, 16}).contiguous);
  // Panels of 24 floats (96 bytes, neither a whole line nor a part of one): never assumed inside one panel.
  TensorSpec odd = ts({64, 48}, Level::L2, Layout::blocked(1, 24));
  odd.contiguous = false;
  CHECK_FALSE(tile_tensor(odd, {1, 24}).contiguous);
}

TEST_CASE("a strided tile is aligned only when every run of it starts on a line", "[tiling]") {
  // A 257x64 panel of a 257-float-wide matrix: its first row starts on a line, row k 4k bytes past one.
  const TensorSpec panel = tile_tensor(ts({257, 257}), {257, 64});
  CHECK_FALSE(panel.contiguous);
  CHECK_FALSE(panel.aligned);
  CHECK_FALSE(tile_tensor(panel, {1, 64}).aligned);  // its rows: the panel's own width (256 bytes) would say aligned
  CHECK(lines_touched(panel) == 257 * 5);
  // Rows of whole lines (272 floats): every row of the panel, and of its tiles, starts on a line.
  const TensorSpec whole = tile_tensor(ts({256, 272}), {256, 64});
  CHECK(whole.aligned);
  CHECK(tile_tensor(whole, {1, 64}).aligned);
  CHECK(tile_tensor(tile_tensor(whole, {16, 64}), {1, 64}).aligned);
  CHECK_FALSE(tile_tensor(whole, {256, 8}).aligned);  // along the row the stride is one element
  CHECK(lines_touched(whole) == 256 * 4);
  // Whole rows of the 257-wide matrix are one run (contiguous): only the first element counts.
  const TensorSpec rows = tile_tensor(ts({257, 257}), {16, 257});
  CHECK(rows.contiguous);
  CHECK(rows.aligned);
  // In registers every element is aligned.
  CHECK(tile_tensor(ts({6, 5}, Level::VRF, Layout::row_major(), 16), {6, 1}).aligned);
  CHECK_FALSE(tile_tensor(ts({6, 5}), {6, 1}).aligned);
}

TEST_CASE("a strided tensor's runs over several dimensions: its tiles' runs, contiguity and alignment", "[tiling]") {
  // Rows of 32 pixels of 3 channels of a 224x224 RGB image: runs of 96 floats, rows 2688 bytes (42 lines) apart.
  const TensorSpec image = ts({1, 224, 224, 3});
  const TensorSpec rows = tile_tensor(image, {1, 2, 32, 3});
  CHECK_FALSE(rows.contiguous);
  CHECK(rows.run_dims == 2);
  CHECK(rows.run_elements() == 96);
  CHECK(rows.runs() == 2);
  CHECK(rows.aligned);  // each run starts 384 bytes into a row of whole lines
  CHECK(lines_touched(rows) == 2 * 6);
  // The interior of its padded 1x230x230x3 buffer: runs of 224 pixels (strided:2), starting 3 pixels in.
  TensorSpec interior = tile_tensor(ts({1, 230, 230, 3}), {1, 224, 224, 3});
  CHECK(interior.run_dims == 2);
  CHECK(interior.run_elements() == 672);
  interior.aligned = false;
  // A row of it is one run, and so is a piece of a row; rows of 5 pixels start 60 bytes apart: not aligned.
  CHECK(tile_tensor(interior, {1, 1, 224, 3}).contiguous);
  CHECK(tile_tensor(interior, {1, 1, 5, 3}).contiguous);
  const TensorSpec two = tile_tensor(interior, {1, 2, 5, 3});
  CHECK_FALSE(two.contiguous);
  CHECK(two.run_dims == 2);
  CHECK_FALSE(two.aligned);
  // A column of single pixels: runs of 3 floats, the dimension of extent 1 no part of them (one Spec, not two).
  const TensorSpec column = tile_tensor(interior, {1, 8, 1, 3});
  CHECK(column.run_dims == 1);
  CHECK(column.run_elements() == 3);
  // Part of each pixel's channels: runs along the innermost dimension only, as before.
  CHECK(tile_tensor(ts({1, 4, 4, 8}), {1, 4, 4, 4}).run_dims == 1);
  // Other layouts keep runs along the innermost dimension.
  CHECK(tile_tensor(ts({8, 8, 4}, Level::GL, Layout::col_major()), {4, 8, 4}).run_dims == 1);
}
