// kriek calibrate and kriek tune end to end: a quick calibration writes a profile that parses and that every
// command then reads (explicitly, or from the default place beside the DP table); tune records its fastest
// candidate and query, run and synth use it; every user error is one line and exit 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cache/table.h"
#include "cache/tuned.h"
#include "spec/profile.h"
#include "spec/text.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace {

using Result = kriek::testing::CommandResult;

Result run_kriek(const std::string& args) { return kriek::testing::run_command(std::string(KRIEK_BINARY) + " " + args); }

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The value of the "fingerprint" line of kriek target's output.
std::string fingerprint_line(const std::string& out) {
  const std::size_t at = out.find("\nfingerprint ");
  return at == std::string::npos ? "" : out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

void check_one_line_error(const Result& r, const std::string& what) {
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("kriek: error: ") && Contains(what));
  CHECK(r.out.find('\n') == r.out.size() - 1);
}

}  // namespace

TEST_CASE("a quick calibration writes a valid profile that the target and its fingerprint then carry",
          "[tools][calibrate]") {
  const kriek::testing::TempDir dir;
  const std::string file = (dir / "host.profile").string();
  const Result r = run_kriek("calibrate --quick -o " + file);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("fma-per-cycle.32b") && Contains("latency.DRAM") && Contains("wrote " + file));
  const kriek::TargetProfile p = kriek::parse_profile(read(file), file);
  CHECK(p.values.size() == kriek::profile_keys(p.isa).size());
  // Plausible for any core of today: the clock chain must not be folded (Golden Cove folds immediate adds, and
  // read 16 GHz), and an FMA takes cycles, not fractions of one.
  CHECK(p.value("clock-ghz") > 0.1);
  CHECK(p.value("clock-ghz") < 7);
  CHECK(p.value("fma-latency.32b") >= 1);
  CHECK(p.value("fma-per-cycle.32b") >= 0.5);
  CHECK_THAT(p.measured, Contains("quick"));
  const Result with = run_kriek("target --profile " + file);
  const Result without = run_kriek("target --no-profile");
  CHECK(with.status == 0);
  CHECK_THAT(with.out, Contains("profile " + file));
  CHECK(fingerprint_line(with.out) != fingerprint_line(without.out));
  // Without a profile in the default place (a cache of its own: this machine's user may have calibrated).
  const Result plain = kriek::testing::run_command("XDG_CACHE_HOME=" + dir.path().string() + " " + KRIEK_BINARY +
                                                   " target");
  CHECK(fingerprint_line(without.out) == fingerprint_line(plain.out));
  // Synthesis runs with it, and its cost model differs from the defaults (another table identity).
  CHECK(run_kriek("synth 'matmul 4x4x16 f32' --no-table --profile " + file).status == 0);
  // A profile applies only to the target it measured.
  check_one_line_error(run_kriek("target --target avx512 --profile " + file), "was measured for target host");
}

TEST_CASE("the default profile lives beside the default DP table, one of other hardware is ignored with a note",
          "[tools][calibrate]") {
  const kriek::testing::TempDir dir;
  const std::string env = "XDG_CACHE_HOME=" + dir.path().string() + " ";
  const std::string kriek = env + KRIEK_BINARY;
  REQUIRE(kriek::testing::run_command(kriek + " calibrate --quick").status == 0);
  const std::string file = (dir / "kriek/host.profile").string();
  REQUIRE(std::filesystem::exists(file));
  CHECK_THAT(kriek::testing::run_command(kriek + " target").out, Contains("profile " + file));
  CHECK_THAT(kriek::testing::run_command(kriek + " target --no-profile").out, !Contains("profile "));
  // Measured for other hardware: a note, and the defaults.
  std::string text = read(file);
  const std::size_t at = text.find("target-fingerprint ") + 19;
  text.replace(at, 4, "0000");
  std::ofstream(file) << text;
  const Result moved = kriek::testing::run_command(kriek + " target");
  CHECK(moved.status == 0);
  CHECK_THAT(moved.out, Contains("kriek: note: the profile " + file + " was measured for target host") &&
                            Contains("it is ignored") && !Contains("\nprofile "));
  // Of an older kriek (another format version): a note naming both versions, and the defaults.
  std::ofstream(file) << "# an older kriek's\nkriek-profile 2\ntarget host\nisa avx2\n";
  const Result old = kriek::testing::run_command(kriek + " target");
  CHECK(old.status == 0);
  CHECK_THAT(old.out, Contains("kriek: note: the profile " + file + " has format version 2, this kriek reads version " +
                               std::to_string(kriek::TargetProfile::kFormatVersion) + "; it is ignored") &&
                          !Contains("\nprofile "));
  // Damaged: an error naming the file and line, also from the default place.
  std::ofstream(file) << "kriek-profile " << kriek::TargetProfile::kFormatVersion
                      << "\ntarget host\nisa avx2\ntarget-fingerprint 1\nclock-ghz many\n";
  check_one_line_error(kriek::testing::run_command(kriek + " synth 'matmul 4x4x4 f32' --no-table"),
                       file + ":5: measurement 'clock-ghz' must be a positive number");
}

TEST_CASE("calibrate, profile and tune errors are one line and exit 1", "[tools][calibrate][errors]") {
  const kriek::testing::TempDir dir;
  const std::string bad = (dir / "bad.profile").string();
  std::ofstream(bad) << "# nothing\nkriek-profile 9\n";
  check_one_line_error(run_kriek("target --profile " + bad), bad + ":2: profile format version 9");
  check_one_line_error(run_kriek("synth 'matmul 4x4x4 f32' --no-table --profile " + bad), bad + ":2:");
  check_one_line_error(run_kriek("query 'matmul 4x4x4 f32' --profile " + (dir / "none.profile").string()),
                       "cannot read the target profile");
  check_one_line_error(run_kriek("target --profile " + bad + " --no-profile"), "--profile and --no-profile exclude");
  check_one_line_error(run_kriek("calibrate now"), "kriek calibrate takes no arguments, got 'now'");
  check_one_line_error(run_kriek("calibrate -o"), "option -o needs a value");
  check_one_line_error(run_kriek("tune"), "usage: kriek tune SPEC");
  check_one_line_error(run_kriek("tune 'matmul 4x4x4 f32' --no-table"), "drop --no-table");
  check_one_line_error(run_kriek("tune 'matmul 4x4x4 f32' --sparse --table " + (dir / "t.table").string()),
                       "times the candidates of an exhaustive search; drop --sparse");
  check_one_line_error(run_kriek("tune 'matmul 4x4x4 f32' --top none --table " + (dir / "t.table").string()),
                       "--top takes a positive number, got 'none'");
  check_one_line_error(run_kriek("tune 'matmul 4x4 f32' --table " + (dir / "t.table").string()), ">>4x4<<");
}

TEST_CASE("kriek tune records the fastest candidate, and query, run and synth use it", "[tools][tune]") {
  const kriek::testing::TempDir dir;
  const std::string table = (dir / "t.table").string();
  const std::string spec = "'matmul 8x8x16 f32' --table " + table;
  const Result tuned = run_kriek("tune " + spec + " --top 3");
  INFO(tuned.out);
  REQUIRE(tuned.status == 0);
  CHECK_THAT(tuned.out, Contains("3 candidates") && Contains("(the DP's pick)") &&
                            Contains("recorded in " + table + "/tuned"));
  REQUIRE(std::filesystem::exists(table + "/tuned"));
  // The recorded candidate's root action, as tune printed it.
  const std::size_t at = tuned.out.find("chosen: candidate ") + 18;
  const int fastest = std::stoi(tuned.out.substr(at));
  std::istringstream lines(tuned.out);
  std::string line, action;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    int index = -1;
    std::string cost, time, us, gflops;
    if (words >> index >> cost >> time >> us >> gflops && index == fastest && us == "us") {
      std::getline(words, action);
      action = action.substr(2, action.find("  (the DP") == std::string::npos ? std::string::npos
                                                                              : action.find("  (the DP") - 2);
    }
  }
  REQUIRE_FALSE(action.empty());
  const Result query = run_kriek("query " + spec);
  CHECK(query.status == 0);
  CHECK_THAT(query.out, Contains("# tuned: the fastest measured by kriek tune") && Contains(", " + action + ")"));
  const Result run = run_kriek("run " + spec);
  CHECK(run.status == 0);
  CHECK_THAT(run.out, Contains("tuned: the fastest measured by kriek tune") && Contains("verified"));
  CHECK_THAT(run_kriek("synth " + spec).out, Contains("tuned: "));
  // Other limits are another key: the cheapest predicted again.
  CHECK_THAT(run_kriek("synth " + spec + " --memory L1=16K").out, !Contains("tuned: "));
  // A second tune appends; the last record wins and the file stays readable.
  REQUIRE(run_kriek("tune " + spec + " --top 2").status == 0);
  const std::string records = read(table + "/tuned");
  CHECK(std::count(records.begin(), records.end(), '\n') == 2);
  CHECK(run_kriek("query " + spec).status == 0);
}

namespace {

/// `kriek run` and `kriek query` of matmul 8x8x16 with the DP table `table`, whose tuned record they cannot use:
/// each prints `note`, and takes the cheapest predicted (run verifies it; query prints frontier entry 0).
void check_falls_back(const std::string& table, const std::string& note) {
  const Result r = run_kriek("run 'matmul 8x8x16 f32' --no-profile --table " + table);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains(note) && Contains("verified") && !Contains("tuned: the fastest"));
  const Result query = run_kriek("query 'matmul 8x8x16 f32' --no-profile --table " + table);
  CHECK(query.status == 0);
  CHECK_THAT(query.out, Contains(note) && Contains("# best within limits: entry 0"));
}

}  // namespace

TEST_CASE("a tuned choice that no longer rebuilds falls back to the cheapest predicted with a note", "[tools][tune]") {
  const kriek::testing::TempDir dir;
  const std::string table = (dir / "t.table").string();
  REQUIRE(run_kriek("synth 'matmul 8x8x16 f32' --no-profile --table " + table).status == 0);
  const kriek::Target& target = kriek::host_target();
  const kriek::CostModel model = kriek::CostModel::for_target(target);
  const kriek::Spec spec = kriek::parse_spec("matmul 8x8x16 f32", target);
  const std::optional<kriek::Frontier> f = kriek::Table::open(table).lookup(spec);
  REQUIRE(f);
  // The DP's own entry, but naming a child entry that does not exist (what a gc that dropped a child leaves).
  kriek::FrontierEntry broken = f->entries.front();
  REQUIRE_FALSE(broken.children.empty());
  broken.children.front() = 999;
  kriek::record_tuned(table, target, model, spec, kriek::default_limits(target), kriek::TunedRecord{broken, 1e-6, 2e-6});
  check_falls_back(table, "kriek: note: the tuned choice no longer rebuilds");
}

TEST_CASE("a tuned choice timed as other code than this kriek emits falls back to the cheapest predicted",
          "[tools][tune]") {
  const kriek::testing::TempDir dir;
  const std::string table = (dir / "t.table").string();
  REQUIRE(run_kriek("tune 'matmul 8x8x16 f32' --top 2 --no-profile --table " + table).status == 0);
  const Result r = run_kriek("run 'matmul 8x8x16 f32' --no-profile --table " + table);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("tuned: the fastest") && !Contains("kriek: note"));
  // The same record with another code hash (its last field): what a kriek whose code generator emitted other code
  // for these kernels recorded. The last record of a key wins.
  std::string last;
  {
    std::ifstream in(dir / "t.table" / "tuned");
    for (std::string line; std::getline(in, line);) last = line;
  }
  const std::size_t at = last.rfind(' ');
  REQUIRE(at != std::string::npos);
  const std::string code = last.substr(at + 1);
  std::ofstream(dir / "t.table" / "tuned", std::ios::app)
      << last.substr(0, at + 1) << (code == "1" ? "2" : "1") << "\n";
  check_falls_back(table, "kriek: note: the tuned choice was timed as other code");
}
