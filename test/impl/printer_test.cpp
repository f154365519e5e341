// The printer: golden files of hand-built trees (UPDATE_GOLDEN=1 rewrites them), plus the naming rule, hole
// numbering and the annotation column checked directly.
#include <catch2/catch.hpp>

#include "builders.h"
#include "impl/printer.h"
#include "trees.h"

using namespace kriek;
using namespace kriek::test;

TEST_CASE("golden: Figure 1", "[printer]") { check_golden("figure1", print_impl(figure1_tree())); }

TEST_CASE("golden: Figure 1 without specs, annotated like Figure 4", "[printer]") {
  PrintOptions options;
  options.specs = false;
  options.annotate = [](const ImplNode& n) {
    return n.is_hole() ? std::string() : std::to_string(n.spec.output().elements()) + " out elements";
  };
  check_golden("figure4", print_impl(figure1_tree(), options));
}

TEST_CASE("golden: boundary tiles", "[printer]") { check_golden("boundary", print_impl(boundary_tree())); }

TEST_CASE("golden: parallel tile, block and split", "[printer]") {
  check_golden("ptile_block", print_impl(ptile_block_tree()));
}

TEST_CASE("golden: scalar kernels under a blocked move", "[printer]") {
  check_golden("scalar", print_impl(scalar_tree()));
}

TEST_CASE("golden: register micro-kernel", "[printer]") { check_golden("micro_kernel", print_impl(micro_kernel_tree())); }

TEST_CASE("golden: slides", "[printer]") {
  check_golden("slide", print_impl(slide_tree()) + "\n" + print_impl(slide2_tree()));
}

TEST_CASE("golden: pipelines", "[printer]") { check_golden("pipeline", print_impl(pipeline_tree())); }

TEST_CASE("names follow the parent's: lhs -> lhsT -> lhsTr", "[printer]") {
  const std::string text = print_impl(figure1_tree());
  CHECK_THAT(text, Catch::Matchers::Contains("tile (lhsT: 32x128, rhsT: 128x32, outT: 32x32) <- (lhs, rhs, out)\n"));
  CHECK_THAT(text, Catch::Matchers::Contains("move[L1] lhsTr <- lhsT\n"));
  CHECK_THAT(text, Catch::Matchers::Contains("split[64] (lhsTrt: 32x64, rhsTt: 64x32) <- (lhsTr, rhsT)\n"));
  CHECK_THAT(text, Catch::Matchers::Contains("move*[L1] outTr <- outT\n"));
  CHECK_THAT(text, Catch::Matchers::Contains("store outT <- outTr\n"));
}

TEST_CASE("root names by op kind", "[printer]") {
  CHECK(root_operand_names(Spec{Conv{}, {ts({5, 5}), ts({3, 3, 1}), ts({3, 3, 1})}, false}) ==
        std::vector<std::string>{"img", "filters", "out"});
  CHECK(root_operand_names(Spec{Zero{}, {ts({4})}, false}) == std::vector<std::string>{"out"});
  CHECK(root_operand_names(Spec{ReduceSum{0, false}, {ts({4, 2}), ts({2})}, false}) ==
        std::vector<std::string>{"in", "out"});
  CHECK(root_operand_names(Spec{Binary{}, {ts({4}), ts({4}), ts({4})}, false}) ==
        std::vector<std::string>{"lhs", "rhs", "out"});
  CHECK(root_operand_names(pipeline_tree()->spec) == std::vector<std::string>{"in0", "in1", "in2", "out"});
}

TEST_CASE("holes are numbered in print order, a prologue hole before its body's", "[printer]") {
  const Spec s = matmul(ts({4, 4}), ts({4, 4}), ts({4, 4}));
  auto impl = move_of(s, 0, ts({4, 4}, Level::L1), hole, hole);
  PrintOptions options;
  options.specs = false;
  CHECK(print_impl(impl, options) == "move[L1] lhsr <- lhs\n    load lhsr <- lhs\n        h1: hole\n    h2: hole\n");
  CHECK(holes(impl)[0] == impl->children[1].get());
  CHECK(holes(impl)[1] == impl->children[0].get());
}

TEST_CASE("the annotation column is right-aligned after the longest line", "[printer]") {
  PrintOptions options;
  options.specs = false;
  options.annotate = [](const ImplNode& n) { return n.is_hole() ? std::string("7") : std::string("1234"); };
  const Spec s = matmul(ts({4, 4}), ts({4, 4}), ts({4, 4}));
  const std::string text = print_impl(make_with_holes(s, matmul_tile(s, 2, 4), avx512()), options);
  CHECK(text ==
        "tile (lhsT: 2x4, outT: 2x4) <- (lhs, out)    1234\n"
        "    h1: hole                                    7\n");
}

TEST_CASE("the spec comment is compact and deterministic", "[printer]") {
  TensorSpec t = ts({4, 16}, Level::VRF, Layout::blocked(1, 8), 16);
  t.contiguous = false;
  t.aligned = false;
  const Spec s{ReduceSum{1, true}, {t, ts({4}, Level::RF)}, true};
  CHECK(spec_comment(s) == "reducesum[axis=1, acc] (4x16 VRF blk1:8 v16 strided unaligned -> 4 RF) serial");
}
