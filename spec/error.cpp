// Reporting of failed internal assertions.
#include "spec/error.h"

#include <cstdio>
#include <cstdlib>

namespace kriek::detail {

void assert_failed(const char* file, int line, const char* condition, const std::string& message) {
  std::fprintf(stderr, "%s:%d: internal error: assertion `%s` failed: %s\n", file, line, condition,
               message.c_str());
  std::abort();
}

}  // namespace kriek::detail
