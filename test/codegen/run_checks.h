// What the codegen tests share: a private temporary directory, and checks that Impls compile through both backends
// (the C one with -Werror) and compute the reference, alone, as one library, or as the DP's picks of Spec texts.
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "codegen/compile.h"
#include "impl/node.h"
#include "spec/target.h"
#include "synth/synthesizer.h"

namespace kriek::test {

/// A private directory removed when the test ends.
struct TempDir {
  std::filesystem::path path = codegen::make_temp_dir();
  ~TempDir() { std::filesystem::remove_all(path); }
};

/// Emits, compiles with -Werror, runs on `threads` threads (0: leave the default) and checks `impl`; then the same
/// through the LLVM backend. Where this machine lacks the target's ISA, only compiles.
void check_runs(const ImplPtr& impl, const Target& target, int threads = 0);

/// The same for many Impls, compiled as one library.
void check_all_run(const std::vector<ImplPtr>& impls, const Target& target);

/// The text of a conv of one image of h x w pixels of `channels`, `filters` square windows of `window` pixels,
/// with `stride` and `pad`: `conv[stride=2,pad=1] 1x9x7x3 3x3x3x5 f32`.
std::string conv_text(std::int64_t h, std::int64_t w, std::int64_t channels, std::int64_t window,
                      std::int64_t filters, std::int64_t stride, std::int64_t pad);

/// What the seeded random-schedule tests share: the host's vector target (avx512, else avx2), the DP on it to
/// complete schedules, and a generator seeded by KRIEK_SEED or `fallback` (the test prints `seed`).
struct RandomSchedules {
  explicit RandomSchedules(std::uint64_t fallback);
  std::uint64_t seed;
  std::mt19937_64 rng;
  Target target;
  Synthesizer synth;
  /// The DP's best Impl of `spec` within the target's capacities.
  ImplPtr best(const Spec& spec);
  /// A uniform integer in [lo, hi].
  std::int64_t pick(std::int64_t lo, std::int64_t hi);
};

/// Calls `check` with the DP's best Impl of each Spec text on each named target (one Synthesizer per target), the
/// target and the text given to INFO.
void for_each_pick(std::initializer_list<const char*> targets, std::initializer_list<const char*> texts,
                   const std::function<void(const Target&, const ImplPtr&)>& check);

}  // namespace kriek::test
