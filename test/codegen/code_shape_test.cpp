// code_shape: kernels that differ only in comments, variable names and their entry point's name have one shape;
// any other difference (an intrinsic, a constant, a loop bound) gives another.
#include <catch2/catch.hpp>

#include "codegen/measure.h"

using namespace kriek::codegen;

namespace {

CSource source(const std::string& function, const std::string& body) {
  return CSource{"// Impl: " + function + "\nvoid " + function + "(const float *restrict in, float *restrict out) {\n" +
                     body + "}\n",
                 function, 0, false, {}};
}

}  // namespace

TEST_CASE("code_shape ignores comments and names but nothing else", "[codegen][shape]") {
  const std::string body = "  for (long i = 0; i < 8; ++i) {\n    __m256 inTr = _mm256_loadu_ps(in + i); // load\n"
                           "    _mm256_storeu_ps(out + i, inTr);\n  }\n";
  std::string renamed = body;
  renamed.replace(renamed.find("inTr"), 4, "inTTr");
  renamed.replace(renamed.find("inTr"), 4, "inTTr");
  renamed.replace(renamed.find("// load"), 7, "// another comment");
  const std::string base = code_shape(source("kriek_a", body));
  CHECK(code_shape(source("kriek_b", renamed)) == base);
  std::string other_call = body;
  other_call.replace(other_call.find("_mm256_loadu_ps"), 15, "_mm256_load_ps");
  CHECK(code_shape(source("kriek_a", other_call)) != base);
  std::string other_bound = body;
  other_bound.replace(other_bound.find("< 8"), 3, "< 9");
  CHECK(code_shape(source("kriek_a", other_bound)) != base);
  // Two variables that were one are another program.
  std::string split = body;
  split.replace(split.rfind("inTr"), 4, "inTx");
  CHECK(code_shape(source("kriek_a", split)) != base);
}
