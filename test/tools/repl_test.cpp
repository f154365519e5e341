// The REPL driven through its input stream (kriek script FILE, kriek repl < FILE): Figure 1 by hand as a golden
// test, every command, every error path with its line number, undo/redo, save and replay; and the interactive
// REPL under tmux (tab completion, history).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "spec/target.h"
#include "support/golden.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace {

using Result = kriek::testing::CommandResult;

Result shell(const std::string& command) { return kriek::testing::run_command(command); }

/// Scripts and saved sessions live here for the whole test run, never in the source tree.
const kriek::testing::TempDir& scratch() {
  static const kriek::testing::TempDir dir;
  return dir;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = (scratch() / name).string();
  std::ofstream(path) << text;
  return path;
}

Result script(const std::string& name, const std::string& text, const std::string& target = "avx512") {
  return shell(std::string(KRIEK_BINARY) + " script " + temp_file(name, text) + " --target " + target);
}

/// The output of a script that stops at a refused step, after checking that it exited with status 1.
std::string refused(const std::string& name, const std::string& text) {
  const Result r = script(name, text);
  CHECK(r.status == 1);
  return r.out;
}

/// The widest vector target this machine runs: scripts that `run` kernels use it.
std::string runnable_target() { return kriek::host_target().isa == kriek::Isa::avx512 ? "avx512" : "avx2"; }

}  // namespace

TEST_CASE("repl: Figure 1 by hand, completed by the DP, prints the golden tree and matches the reference",
          "[tools][repl][golden]") {
  const Result r = script("figure1.kriek",
                          "spec matmul 128x128x128 f32\ntile_out 32 32\nmove in0 L1\nsplit 64\nmove in1 L1\n"
                          "move out L1\ncomplete\ncheck\n");
  REQUIRE(r.status == 0);
  const auto last = r.out.rfind("# matmul (128x128 GL, 128x128 GL -> 128x128 GL)");
  kriek::testing::check_golden("tools", "figure1_repl", r.out.substr(last));
  CHECK_THAT(r.out, Contains("matches the reference"));
}

TEST_CASE("repl: every command", "[tools][repl]") {
  const std::string target = runnable_target();
  const std::string lanes = target == "avx512" ? "16" : "8";
  const Result r = script("commands.kriek",
                          "# a comment\nhelp\nhelp split\nspec conv 12x12 3x3x4 f32\nslide 0 4 L2\ntile_out 4 5 2\n"
                          "focus h1\nmove in1 L1\nactions\ncost\nshow\nundo\nredo\ncomplete h2\ncomplete all\ncost\ncheck\n"
                          "emit\nrun\ncost\n"
                          "spec compose[matmul, relu] 4x8 8x16 f32\nbufferize 1 L1\nto_accum\n"
                          "spec zero (-> 1x" + lanes + " f32 VRF row v" + lanes + ")\nselect vec_zero\n"
                          "quit\nshow\n",
                          target);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("tile_out E1 E2 ... [parallel]") && Contains("split K"));
  CHECK_THAT(r.out, Contains("slide[4]") && Contains("move[L1"));
  CHECK_THAT(r.out, Contains("  select ") || Contains("  tile_out "));
  CHECK_THAT(r.out, Contains("matches the reference") && Contains("complete\n") && Contains("cost "));
  CHECK_THAT(r.out, Contains("pipeline[cut 1"));
  CHECK_THAT(r.out, Contains("void kriek_conv_12x12_3x3x4_f32(") && Contains("verified: max error") &&
                        Contains("GFLOP/s"));
  // After run, cost shows the measured time beside the prediction (and only then).
  CHECK(r.out.find("us per call (run), predicted ") > r.out.find("verified: max error"));
  CHECK(r.out.find("us per call (run)") != std::string::npos);
}

TEST_CASE("repl: move ... copy packs a strided input in its own placement, compiled and verified",
          "[tools][repl][llvm]") {
  const Result r = script("copy.kriek",
                          "spec matmul 8x64x64 f32\ntile_out 8 16\nmove in1 L1 copy\ncomplete all\ncheck\nrun\n",
                          runnable_target());
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("move[L1] in1r <- in1T") || Contains("move[L1] "));
  CHECK_THAT(r.out, Contains("load "));
  CHECK_THAT(r.out, Contains("verified: max error"));
  const auto error = [](const std::string& text) { return script("copy_error.kriek", text); };
  CHECK_THAT(error("spec matmul 8x64x64 f32\nmove in1 L1 copy\n").out,
             Contains("line 2:") && Contains("move_to (12)") && Contains("contiguous"));
  CHECK_THAT(error("spec matmul 8x64x64 f32\ntile_out 8 16\nmove out L1 copy\n").out,
             Contains("line 3: move out ... copy: only an input is packed in its own placement"));
}

TEST_CASE("repl: a hole inside a register tile completes within the registers the tile leaves", "[tools][repl]") {
  // A 6x64 tile holds 24 of AVX-512's 32 registers; its body may use 8 more (2048 bytes in all), not another 16
  // for a block of the rhs (2624 bytes: spills, 3.4x slower before the limits counted the tile).
  const std::string steps = "spec matmul 64x256x64 f32 serial\ntile_out 6 64\nmove out VRF\n";
  const Result r = script("register_room.kriek", steps + "actions\ncomplete\ncost\n");
  REQUIRE(r.status == 0);
  const auto at = r.out.rfind("VRF=");
  REQUIRE(at != std::string::npos);
  CHECK(std::stol(r.out.substr(at + 4)) <= 2048);
  // Every action listed fits the 512 bytes left.
  for (std::size_t at = r.out.find("peak "); at != std::string::npos; at = r.out.find("peak ", at + 1)) {
    const auto vrf = r.out.find("VRF=", at);
    if (r.out.rfind("  cost ", at) > r.out.rfind('\n', at)) CHECK(std::stol(r.out.substr(vrf + 4)) <= 512);
  }
  // With one hole named, the others keep theirs; the budget is per hole.
  const Result one = script("register_room_one.kriek", steps + "complete h2\ncomplete h1\ncost\n");
  REQUIRE(one.status == 0);
  CHECK(std::stol(one.out.substr(one.out.rfind("VRF=") + 4)) <= 2048);
}

TEST_CASE("repl: pad_image and to_matmul, the conv steps actions lists, apply by hand", "[tools][repl]") {
  const Result r = script("conv_steps.kriek",
                          "spec conv[pad=1] 1x6x6x4 3x3x4x8 f32\npad_image L2 row\nfocus h6\nactions\ncomplete all\n"
                          "check\nspec conv 1x4x4x8 1x1x8x16 f32\nto_matmul\ncomplete\ncheck\n");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("pad[L2 1x1] imgp <- img") && Contains("as_matmul ("));
  CHECK(r.out.find("matches the reference") != r.out.rfind("matches the reference"));  // both
  CHECK_THAT(refused("conv_steps_bad.kriek", "spec conv 1x4x4x8 3x3x8x16 f32\npad_image L2\n"),
             Contains("line 2") && Contains("pad_image"));
  CHECK_THAT(refused("conv_steps_bad2.kriek", "spec conv 1x4x4x8 3x3x8x16 f32\nto_matmul\n"),
             Contains("line 2") && Contains("to_matmul (3): the filter window is 3x3"));
}

TEST_CASE("repl: slide pads a padded, strided conv in its window, run and checked", "[tools][repl][llvm]") {
  const Result r = script("padded_slide.kriek",
                          "spec conv[stride=2,pad=1] 1x9x9x16 3x3x16x16 f32\nslide 1 2 L1\ncomplete\ncheck\nrun\n",
                          runnable_target());
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("slide[2 pad 1x1] (imgS: 1x5x11x16 L1, outS: 1x2x5x16) <- (img, out)") &&
                        Contains("# conv[stride=2] (1x5x11x16 L1") && Contains("matches the reference") &&
                        Contains("verified"));
  CHECK_THAT(refused("padded_slide_bad.kriek", "spec conv[pad=1] 1x6x6x4 3x3x4x8 f32\nslide 1 6 L1\n"),
             Contains("line 2") && Contains("slide (3): size 6 is not in [1, 6)"));
}

TEST_CASE("repl: split over a conv's filter rows and columns by name", "[tools][repl]") {
  const Result r = script("conv_taps.kriek", "spec conv 1x6x6x4 3x3x4x8 f32\nto_accum\nfocus h2\nsplit 1 fh\n"
                                             "split 1 fw\ncomplete\ncheck\n");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("split[1] (imgt: 1x4x6x4, filterst: 1x3x4x8)") &&
                        Contains("split[1] (imgtt: 1x4x4x4, filterstt: 1x1x4x8)") && Contains("matches the reference"));
  CHECK_THAT(refused("conv_taps_bad.kriek", "spec conv 1x6x6x4 3x3x4x8 f32\nsplit 1 fz\n"),
             Contains("line 2") && Contains("split's axis is fh (a conv's filter rows) or fw (its columns), got 'fz'"));
}

TEST_CASE("repl: split a padded conv's taps over the outputs that read the image, and the refusals",
          "[tools][repl]") {
  const Result r = script("split_taps.kriek", "spec conv[pad=1] 1x5x5x4 3x3x4x8 f32\nto_accum\nfocus h2\n"
                                              "split_taps fh\nsplit_taps fw\ncomplete all\ncheck\n");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("taps[fh]") && Contains("tap 0 (imgk: 1x4x5x4 <- img") && Contains("taps[fw]") &&
                        Contains("matches the reference"));
  CHECK_THAT(refused("split_taps_word.kriek", "spec conv[pad=1] 1x5x5x4 3x3x4x8 f32\nsplit_taps fz\n"),
             Contains("line 2") && Contains("split_taps cuts fh (a conv's filter rows) or fw (its columns), got 'fz'"));
  CHECK_THAT(refused("split_taps_acc.kriek", "spec conv[pad=1] 1x5x5x4 3x3x4x8 f32\nsplit_taps fh\n"),
             Contains("line 2") && Contains("split_taps (1)"));
}

TEST_CASE("repl: flatten an elementwise op of dense rows, and its one-line refusal", "[tools][repl]") {
  const Result r = script("flatten.kriek", "spec relu 9x7 f32\nflatten\ncomplete\ncheck\n");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("flatten (inV: 63 <- in, outV: 63 <- out)") && Contains("matches the reference"));
  CHECK_THAT(refused("flatten_bad.kriek", "spec add 9x7 1x7 f32\nflatten\n"),
             Contains("line 2") && Contains("flatten (3): operand 1 is 1x7, not the output's 9x7"));
}

TEST_CASE("repl: compare times the complete Impl against the DP's pick and refuses open holes", "[tools][repl]") {
  const std::string target = runnable_target();
  // A hand schedule (rows of 4, whatever the DP picks) and the DP's own pick: both verified, both timed.
  const Result r = script("compare.kriek", "spec matmul 16x32x32 f32\ntile_out 4 32\ncomplete\ncompare\ncost\n",
                          target);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("compare matmul (16x32 f32 GL row, 32x32 f32 GL row -> 16x32 f32 GL row): 5 "
                             "alternating rounds") &&
                        Contains("  this Impl      predicted ") && Contains("  the DP's pick  predicted ") &&
                        Contains("x the time of the DP's pick"));
  // Its measurement shows in cost, as run's does (after the comparison, which names no measurement so).
  const std::size_t compared = r.out.find("x the time of the DP's pick");
  REQUIRE(compared != std::string::npos);
  CHECK(r.out.find("us per call (run), predicted ", compared) != std::string::npos);
  // The DP's pick compared with itself says so.
  const Result same = script("compare_same.kriek", "spec matmul 16x32x32 f32\ncomplete\ncompare\n", target);
  REQUIRE(same.status == 0);
  CHECK_THAT(same.out, Contains("(the same Impl: the spread is the timing noise)"));
  CHECK_THAT(refused("compare_open.kriek", "spec matmul 16x32x32 f32\ntile_out 4 32\ncompare\n"),
             Contains("line 3") && Contains("compare needs a complete Impl; 1 hole is open"));
}

TEST_CASE("repl: run follows kriek script --backend, a bad backend is one line", "[tools][repl][llvm]") {
  const std::string file = temp_file("backend.kriek", "spec matmul 4x8x16 f32\ncomplete\nrun\n");
  const Result r = shell(std::string(KRIEK_BINARY) + " script " + file + " --target " + runnable_target() +
                         " --backend llvm");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("LLVM JIT") && Contains("verified: max error"));
  const Result c = shell(std::string(KRIEK_BINARY) + " script " + file + " --target " + runnable_target() +
                         " --backend c");
  CHECK(c.status == 0);
  CHECK_THAT(c.out, !Contains("LLVM JIT") && Contains("verified: max error"));
  const Result bad = shell(std::string(KRIEK_BINARY) + " script " + file + " --backend cc");
  CHECK(bad.status == 1);
  CHECK_THAT(bad.out, Contains("unknown --backend 'cc'"));
}

TEST_CASE("repl: actions lists the DP's completions by cost within the memory limits, --all the rest too",
          "[tools][repl]") {
  const std::string session = "spec matmul 64x64x64 f32\nactions\nactions --all\n";
  const kriek::testing::TempDir dir;
  const std::string file = (dir / "actions.kriek").string();
  std::ofstream(file) << session;
  const Result r = shell(std::string(KRIEK_BINARY) + " script " + file + " --target avx512 --memory L1=4K");
  REQUIRE(r.status == 0);
  const auto second = r.out.find("\n* ", r.out.find("\n* ") + 1);  // where `actions --all` starts
  REQUIRE(second != std::string::npos);
  const std::string listed = r.out.substr(0, second + 1), all = r.out.substr(second + 1);
  // Sorted by cost, the cheapest marked, each with its peak; none beyond the limits unless --all.
  std::istringstream lines(listed.substr(listed.find("\n* ") + 1));
  std::vector<long long> costs;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    CHECK((costs.empty() ? line.rfind("* ", 0) : line.rfind("  ", 0)) == 0);
    const auto at = line.find("  cost ");
    REQUIRE(at != std::string::npos);
    costs.push_back(std::stoll(line.substr(at + 7)));
    CHECK_THAT(line, Contains("  peak L2="));
  }
  CHECK(costs.size() > 3);
  CHECK(std::is_sorted(costs.begin(), costs.end()));
  CHECK_THAT(listed, !Contains("no completion"));
  // A 64x64 operand moved into an L1 of 4 KiB has no completion: listed only with --all, as such.
  CHECK_THAT(listed, !Contains("move in0 L1 "));
  CHECK_THAT(all, Contains("no completion within the memory limits") && Contains("move in0 L1"));
  CHECK(std::count(all.begin(), all.end(), '\n') > std::count(listed.begin(), listed.end(), '\n'));
  CHECK_THAT(script("actions_bad.kriek", "spec relu 4x4 f32\nactions everything\n").out,
             Contains("actions takes --all or nothing, got 'everything'"));
}

TEST_CASE("repl: errors name the line and the problem, and leave the session unchanged", "[tools][repl][errors]") {
  auto error = [](const std::string& text) { return script("error.kriek", text); };
  Result r = error("spec matmul 8x8x8 f32\nfrobnicate\n");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("line 2: unknown command 'frobnicate'"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nsplit many\n").out, Contains("line 2: k must be a number, got 'many'"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nsplit 8\n").out, Contains("line 2:") && Contains("split (3)"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nfocus h9\n").out, Contains("line 2:") && Contains("h9"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nmove in7 L1\n").out, Contains("no input 'in7'"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nmove in0 L7\n").out, Contains("unknown level 'L7'"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nselect warp_drive\n").out, Contains("unknown kernel 'warp_drive'"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\ntile_out\n").out, Contains("usage: tile_out"));
  CHECK_THAT(error("tile_out 4 4\n").out, Contains("line 1: no Spec yet"));
  CHECK_THAT(error("spec matmul 8x8 f32\n").out, Contains("line 1:") && Contains(">>8x8<<"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nundo\nundo\n").out, Contains("line 2: nothing to undo"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nredo\n").out, Contains("line 2: nothing to redo"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\ntile_out 4 4\nemit\n").out, Contains("line 3:") && Contains("hole h1"));
  CHECK_THAT(error("spec matmul 8x8x8 f32\nrun now\n").out, Contains("line 2:"));
  // Interactive sessions report the error and go on with the session unchanged.
  const Result piped = shell("printf 'spec relu 4x4 f32\\nsplit 2\\nshow\\n' | " + std::string(KRIEK_BINARY) +
                             " repl --target avx512");
  CHECK(piped.status == 1);
}

TEST_CASE("repl: undo and redo walk the history, save writes a replayable script", "[tools][repl]") {
  const std::string saved = (scratch() / "saved.kriek").string();
  const Result r = script("undo.kriek", "spec matmul 8x8x8 f32\ntile_out 4 4\nsplit 2\nundo\nundo\nredo\n"
                                        "tile_out 2 2\nredo\n");
  CHECK(r.status == 1);  // the last redo has nothing to redo: tile_out 2 2 dropped the undone split
  CHECK_THAT(r.out, Contains("line 8: nothing to redo"));
  const Result s = script("save.kriek", "spec matmul 8x8x8 f32\ntile_out 4 4\nsplit 2\nundo\nsave " + saved + "\n");
  CHECK(s.status == 0);
  std::ifstream in(saved);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "spec matmul 8x8x8 f32\ntile_out 4 4\n");
  const Result replay = shell(std::string(KRIEK_BINARY) + " repl --target avx512 < " + saved);
  CHECK(replay.status == 0);
  CHECK_THAT(replay.out, Contains("tile (lhsT: 4x8, rhsT: 8x4, outT: 4x4)"));
}

TEST_CASE("repl: the interactive REPL under tmux completes with tab and recalls history", "[tools][repl][tmux]") {
  REQUIRE(shell("command -v tmux").status == 0);
  const std::string session = "kriek_test_" + std::to_string(getpid());
  auto tmux = [&](const std::string& args) { return shell("tmux " + args); };
  REQUIRE(tmux("new-session -d -s " + session + " -x 200 -y 50 '" + std::string(KRIEK_BINARY) +
               " repl --target avx512'").status == 0);
  auto screen = [&] { return tmux("capture-pane -p -t " + session).out; };
  auto wait_for = [&](const std::string& text) {
    for (int i = 0; i < 100; ++i) {
      if (screen().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  CHECK(wait_for("kriek>"));  // capture-pane trims the trailing space
  tmux("send-keys -t " + session + " 'spe' Tab");
  CHECK(wait_for("kriek> spec"));
  tmux("send-keys -t " + session + " ' matmul 8x8x16 f32' Enter");
  CHECK(wait_for("h1: hole"));
  tmux("send-keys -t " + session + " 'tile_out 4 16' Enter");
  CHECK(wait_for("outT: 4x16"));
  tmux("send-keys -t " + session + " 'focus h' Tab Tab");
  CHECK(wait_for("focus h1"));
  tmux("send-keys -t " + session + " C-u Up");
  CHECK(wait_for("kriek> tile_out 4 16"));
  tmux("send-keys -t " + session + " C-u 'quit' Enter");
  tmux("kill-session -t " + session);
}
