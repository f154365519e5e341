// Spec text: long and short forms of every op kind round-trip, and every kind of bad text gets its own marked,
// one-line error.
#include <catch2/catch.hpp>

#include "spec/error.h"
#include "spec/text.h"
#include "support/tensors.h"

using namespace kriek;
using Catch::Matchers::Contains;

namespace {

using kriek::testing::avx512;

/// Printing then parsing gives an equal Spec, and the long form reprints unchanged.
void round_trip(const std::string& text) {
  INFO(text);
  const Spec s = parse_spec(text, avx512());
  const std::string long_form = spec_text(s);
  const Spec again = parse_spec(long_form, avx512());
  CHECK(again == s);
  CHECK(spec_text(again) == long_form);
}

/// The message parse_spec throws for `text`, or "no error".
std::string parse_error(const std::string& text) {
  try {
    parse_spec(text, avx512());
  } catch (const UserError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

}  // namespace

TEST_CASE("short forms of every op kind round-trip through the long form", "[spec][text]") {
  for (const char* text :
       {"matmul 128x256x64 f32", "matmul 4x8x16x32 f32", "matmul[acc] 8x8x8 f32 L1", "conv 128x128 5x5x32 f32",
        "conv 10x10x3 3x3x3x8 f32", "conv 1x56x56x64 3x3x64x64 f32", "conv[acc] 6x6 3x3x2 f32", "move 64x64 f32",
        "zero 64x64 f32", "relu 64x64 f32", "add 64x64 f32", "mul 4x4 f32", "sub 4x4 f32", "max 4x4 f32",
        "add 4x4 1x4 f32", "reducesum[axis=1] 64x32 f32", "reducesum[axis=0,acc] 8x4 f32 serial",
        "compose[conv, reducesum[axis=2], conv] 10x10 5x5x6 5x5x6 f32", "compose[matmul, relu] 8x4 4x8 f32"}) {
    round_trip(text);
  }
}

TEST_CASE("the long form names every operand attribute", "[spec][text]") {
  const std::string text =
      "matmul[acc] (6x1 f32 L1 row unaligned strided, 1x64 f32 VRF row v16 -> 6x64 f32 VRF row v16) serial";
  round_trip(text);
  CHECK(spec_text(parse_spec(text, avx512())) == text);
  round_trip("move (64x128 f32 GL row strided -> 64x128 f32 L1 blk1:16)");
  round_trip("move (8x8 f32 GL col -> 8x8 f32 L2 row)");
  round_trip("zero (-> 4x16 f32 VRF row v16)");
}

TEST_CASE("short forms fill defaults and infer the output", "[spec][text]") {
  const Spec s = parse_spec("matmul 128x256x64 f32", avx512());
  CHECK(spec_text(s) == "matmul (128x256 f32 GL row, 256x64 f32 GL row -> 128x64 f32 GL row)");
  const Spec c = parse_spec("conv 128x128 5x5x32 f32", avx512());
  CHECK(c.output().shape == Shape{124, 124, 32});
}

TEST_CASE("bad text gets a one-line error with the token marked", "[spec][text][errors]") {
  CHECK_THAT(parse_error("matmul 128x256 f32"), Contains("needs MxKxN") && Contains(">>128x256<<"));
  CHECK_THAT(parse_error("matmull 8x8x8 f32"), Contains("unknown op") && Contains(">>matmull<<"));
  CHECK_THAT(parse_error("matmul 8x0x8 f32"), Contains("bad shape") && Contains(">>8x0x8<<"));
  CHECK_THAT(parse_error("matmul 8xax8 f32"), Contains("bad shape"));
  CHECK_THAT(parse_error("matmul 99999999999x8x8 f32"), Contains("bad shape"));
  CHECK_THAT(parse_error("relu 2x2x2x2x2x2x2x2x2 f32"), Contains("bad shape (1 to 8 extents"));
  CHECK_THAT(parse_error("relu 2000000x2000000x2000000 f32"), Contains("over 2^48 elements"));
  CHECK_THAT(parse_error("matmul 8x8x8 f33"), Contains("unknown dtype") && Contains(">>f33<<"));
  CHECK_THAT(parse_error("matmul 8x8x8 f32 L3"), Contains("unexpected text") && Contains(">>L3<<"));
  CHECK_THAT(parse_error("move (8x8 f32 L9 row -> 8x8 f32 GL row)"), Contains("unknown level") && Contains(">>L9<<"));
  CHECK_THAT(parse_error("move (8x8 f32 GL diag -> 8x8 f32 GL row)"), Contains("unknown layout"));
  CHECK_THAT(parse_error("move (8x8 f32 GL row, 8x8 f32 GL row)"), Contains("missing '->'"));
  CHECK_THAT(parse_error("move (8x8 f32 GL row bogus -> 8x8 f32 GL row)"), Contains("unknown tensor attribute"));
  CHECK_THAT(parse_error("relu 8x8 f32 serial extra"), Contains("unexpected text") && Contains(">>extra<<"));
  CHECK_THAT(parse_error("conv 8x8 f32"), Contains("takes 2 input shapes"));
  CHECK_THAT(parse_error("matmul 8x8x8"), Contains("ends early"));
  CHECK_THAT(parse_error(""), Contains("empty spec text"));
  CHECK_THAT(parse_error("reducesum[axis=x] 8x8 f32"), Contains("unknown op"));
  for (const char* t : {"matmul 128x256 f32", "conv 8x8 f32", "matmul 8x8x8 f33"}) {
    CHECK(parse_error(t).find('\n') == std::string::npos);
  }
}

TEST_CASE("parsed Specs are validated against the target", "[spec][text][errors]") {
  CHECK_THROWS_WITH(parse_spec("matmul (8x4 f32 GL row, 8x8 f32 GL row -> 8x8 f32 GL row)", avx512()),
                    Contains("inner dimensions disagree"));
  CHECK_THROWS_WITH(parse_spec("zero (-> 4x16 f32 VRF row v8)", avx512()), Contains("vector size 8"));
  CHECK_THROWS_WITH(parse_spec("zero (-> 4x16 f32 VRF row v16)", named_target("scalar")), Contains("VRF"));
}

TEST_CASE("conv strides and padding round-trip and print only when not default", "[spec][text]") {
  for (const char* text : {"conv[stride=2,pad=1] 1x56x56x64 3x3x64x64 f32", "conv[pad=1] 10x10x3 3x3x3x8 f32",
                           "conv[acc,stride=2x1,pad=0x2] 9x9 3x5x4 f32", "conv[stride=3] 10x10 3x3x1 f32",
                           "compose[conv[pad=1], relu] 8x8x2 3x3x2x4 f32"}) {
    round_trip(text);
  }
}

TEST_CASE("conv strides and padding in the spec text, defaults print as before", "[spec][text]") {
  const Spec s = parse_spec("conv[stride=2,pad=1] 1x56x56x64 3x3x64x64 f32", avx512());
  CHECK(s.output().shape == Shape{1, 28, 28, 64});
  CHECK(spec_text(s).rfind("conv[stride=2,pad=1] (", 0) == 0);
  CHECK(parse_spec("conv[stride=2,pad=1] 1x7x7x8 3x3x8x8 f32", avx512()).output().shape == Shape{1, 4, 4, 8});
  CHECK(parse_spec("conv[stride=2] 1x8x8x8 3x3x8x8 f32", avx512()).output().shape == Shape{1, 3, 3, 8});
  // Defaults print as before strides existed.
  CHECK(spec_text(parse_spec("conv[stride=1,pad=0] 6x6 3x3x2 f32", avx512())) ==
        spec_text(parse_spec("conv 6x6 3x3x2 f32", avx512())));
}

TEST_CASE("bad conv strides and padding are one-line errors naming the values", "[spec][text][errors]") {
  CHECK_THAT(parse_error("conv[stride=0] 8x8 3x3x2 f32"), Contains("conv stride 0 along rows must be at least 1"));
  CHECK_THAT(parse_error("conv[stride=1x0] 8x8 3x3x2 f32"), Contains("conv stride 0 along columns"));
  CHECK_THAT(parse_error("conv[pad=3] 8x8 3x3x2 f32"), Contains("conv padding 3 along rows is not smaller than the filter's 3"));
  CHECK_THAT(parse_error("conv[pad=0x1] 8x8 3x1x2 f32"), Contains("padding 1 along columns is not smaller than the filter's 1"));
  CHECK_THAT(parse_error("conv[pad=1] 1x1 5x5x2 f32"), Contains("larger than the image 1x1 padded by 1x1"));
  CHECK_THAT(parse_error("conv[stride=x] 8x8 3x3x2 f32"), Contains("unknown op") && Contains(">>conv[stride=x]<<"));
  CHECK_THAT(parse_error("matmul[pad=1] 8x8x8 f32"), Contains("unknown op"));
  CHECK_THAT(parse_error("conv[stride=2,stride=2] 8x8 3x3x2 f32"), Contains("unknown op"));
  CHECK(parse_error("conv (8x8 f32 GL row, 3x3x2 f32 GL row -> 6x6x2 f32 GL row)") == "no error");
  CHECK_THAT(parse_error("conv[stride=2] (8x8 f32 GL row, 3x3x2 f32 GL row -> 6x6x2 f32 GL row)"),
             Contains("gives a 3x3x2 output, not 6x6x2"));
  for (const char* t : {"conv[stride=0] 8x8 3x3x2 f32", "conv[pad=3] 8x8 3x3x2 f32"}) {
    CHECK(parse_error(t).find('\n') == std::string::npos);
  }
}
