// The statistics of alternating timings (codegen/measure.h): each kernel's median round, and the paired ratio of
// two kernels timed in the same rounds, which a drift of the machine between rounds leaves alone.
#include <catch2/catch.hpp>

#include "codegen/measure.h"

using namespace kriek::codegen;

TEST_CASE("alternating rounds: each kernel's median round, and the median of the rounds' paired ratios",
          "[codegen][measure]") {
  // Kernel 1 takes twice kernel 0's time in two of three rounds; the machine slowed down in the third for both.
  const AlternatingRounds r{{{1.0, 1.0, 3.0}, {2.0, 2.0, 3.3}}};
  CHECK(r.median(0) == 1.0);
  CHECK(r.median(1) == 2.0);
  CHECK(r.medians() == std::vector<double>{1.0, 2.0});
  CHECK(r.median_ratio(1, 0) == 2.0);
  CHECK(r.median_ratio(0, 1) == 0.5);
  CHECK(r.median_ratio(0, 0) == 1.0);
  // The machine drifts from round to round: kernel 1 is 10% slower than kernel 0 in two rounds of three, and the
  // ratio of the median rounds (1.5 / 2) would call it 25% faster.
  const AlternatingRounds drift{{{1.0, 2.0, 3.0}, {1.1, 2.2, 1.5}}};
  CHECK(drift.median(1) / drift.median(0) == Approx(0.75));
  CHECK(drift.median_ratio(1, 0) == Approx(1.1));
}
