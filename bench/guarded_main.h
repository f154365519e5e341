// The benchmarks' entry point: runs a benchmark's body and turns a user error (a bad flag value, a path that is
// no DP table) into one line on stderr and exit status 1 instead of an abort.
#pragma once

#include <iostream>

#include "spec/error.h"

namespace bench {

/// Returns what `body` returns, or 1 after printing "NAME: error: WHAT" when it throws a kriek::UserError.
template <class Body>
int guarded_main(const char* name, Body body) {
  try {
    return body();
  } catch (const kriek::UserError& e) {
    std::cerr << name << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace bench
