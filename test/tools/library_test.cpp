// kriek library end to end: the installed files, incremental rebuilds, list errors, sharding with merged tables,
// and consumers (C with the shared library, C++ with the static one) built through the CMake package config.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/run_command.h"

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

using Result = kriek::testing::CommandResult;

Result run(const std::string& command) { return kriek::testing::run_command(command); }
Result kriek_cmd(const std::string& args) { return run(std::string(KRIEK_BINARY) + " " + args); }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kriek-library-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* kList =
    "# the test library\n"
    "mm = matmul 16x24x8 f32\n"
    "\n"
    "relu_rows = relu 8x16 f32   # an elementwise kernel\n"
    "rowsum = reducesum[axis=1] 8x16 f32\n";

}  // namespace

TEST_CASE("kriek library installs a verified library and rebuilds only what changed", "[tools][library]") {
  TempDir dir;
  write(dir.path / "kernels.txt", kList);
  const std::string base = "library " + (dir.path / "kernels.txt").string() + " -o " + (dir.path / "lib").string() +
                           " --table " + (dir.path / "t.table").string();
  const Result first = kriek_cmd(base);
  INFO(first.out);
  REQUIRE(first.status == 0);
  CHECK_THAT(first.out, Contains("library kernels: 3 kernels") && Contains("(3 compiled, 0 unchanged)"));
  for (const char* f : {"include/kernels.h", "lib/libkernels.so", "lib/libkernels.a", "lib/pkgconfig/kernels.pc",
                        "lib/cmake/kernels/kernelsConfig.cmake", "lib/cmake/kernels/kernelsConfigVersion.cmake",
                        "manifest.json"}) {
    CHECK(fs::exists(dir.path / "lib" / f));
  }
  const std::string header = read(dir.path / "lib/include/kernels.h");
  CHECK_THAT(header, Contains("void mm(const float *KERNELS_RESTRICT lhs, const float *KERNELS_RESTRICT rhs, "
                              "float *KERNELS_RESTRICT out);"));
  CHECK_THAT(header, Contains("extern \"C\"") && Contains("relu (8x16 f32 GL row -> 8x16 f32 GL row)"));
  const std::string manifest = read(dir.path / "lib/manifest.json");
  CHECK_THAT(manifest, Contains("\"symbol\": \"rowsum\", \"line\": 5") && Contains("\"verified_max_error\"") &&
                           Contains("\"schema\": \"kriek-library/1\""));

  const Result again = kriek_cmd(base);
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Contains("(0 compiled, 3 unchanged)"));
  CHECK(read(dir.path / "lib/manifest.json") == manifest);

  std::string changed = kList;
  changed.replace(changed.find("relu 8x16"), 9, "relu 8x32");
  write(dir.path / "kernels.txt", changed);
  const Result one = kriek_cmd(base);
  CHECK(one.status == 0);
  CHECK_THAT(one.out, Contains("(1 compiled, 2 unchanged)"));
  CHECK_THAT(read(dir.path / "lib/include/kernels.h"), Contains("relu (8x32 f32"));
}

TEST_CASE("kriek library --tune builds the fastest measured candidates and records them", "[tools][library]") {
  TempDir dir;
  write(dir.path / "tuned.txt", "mm = matmul 16x24x8 f32\nrowsum = reducesum[axis=1] 8x16 f32\n");
  const std::string base = "library " + (dir.path / "tuned.txt").string() + " -o " + (dir.path / "lib").string() +
                           " --table " + (dir.path / "t.table").string();
  const Result tuned = kriek_cmd(base + " --tune 3");
  INFO(tuned.out);
  REQUIRE(tuned.status == 0);
  CHECK_THAT(tuned.out, Contains("library tuned: 2 kernels") && Contains("tuned: candidate ") &&
                            Contains("us for the DP's pick (recorded beside the table)"));
  const std::string records = read(dir.path / "t.table" / "tuned");
  CHECK(std::count(records.begin(), records.end(), '\n') == 2);  // one record per kernel
  // A rebuild reuses the records: nothing is timed again, and the kernels are the same.
  const Result again = kriek_cmd(base + " --tune 3");
  CHECK(again.status == 0);
  CHECK_THAT(again.out, Contains("(0 compiled, 2 unchanged)") && Contains("tuned: the fastest measured by kriek tune"));
  CHECK(read(dir.path / "t.table" / "tuned") == records);
  // Bad values and combinations: one line, exit 1.
  for (const std::string& bad : {std::string(" --tune 0"), std::string(" --tune x")}) {
    const Result r = kriek_cmd(base + bad);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("--tune"));
  }
  Result r = kriek_cmd("library " + (dir.path / "tuned.txt").string() + " -o " + (dir.path / "x").string() +
                       " --no-table --tune 2");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("kriek library --tune records what it measures beside the DP table; drop --no-table"));
  r = kriek_cmd("library " + (dir.path / "tuned.txt").string() + " --shard 0/2 --tune 2");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("drop it from --shard jobs"));
}

TEST_CASE("kriek library: list errors name the line and leave the output alone", "[tools][library][errors]") {
  TempDir dir;
  fs::create_directories(dir.path / "lib");
  write(dir.path / "lib" / "manifest.json", "{}");  // a previous library
  write(dir.path / "bad.txt", "ok = relu 8x8 f32\nbroken = matmul 8x8 f32\n");
  Result r = kriek_cmd("library " + (dir.path / "bad.txt").string() + " -o " + (dir.path / "lib").string() +
                       " --no-table");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("bad.txt:2:") && Contains(">>8x8<<"));
  CHECK(read(dir.path / "lib" / "manifest.json") == "{}");

  write(dir.path / "names.txt", "2x = relu 8x8 f32\n");
  r = kriek_cmd("library " + (dir.path / "names.txt").string() + " -o " + (dir.path / "x").string());
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("names.txt:1: the kernel name '2x' is not a C identifier"));
  write(dir.path / "twice.txt", "a = relu 8x8 f32\na = relu 8x16 f32\n");
  r = kriek_cmd("library " + (dir.path / "twice.txt").string() + " -o " + (dir.path / "x").string());
  CHECK_THAT(r.out, Contains("twice.txt:2: the kernel name 'a' is used twice"));
  write(dir.path / "empty.txt", "# nothing\n\n");
  r = kriek_cmd("library " + (dir.path / "empty.txt").string() + " -o " + (dir.path / "x").string());
  CHECK_THAT(r.out, Contains("lists no Specs"));
  write(dir.path / "one.txt", "r = relu 8x8 f32\n");
  r = kriek_cmd("library " + (dir.path / "one.txt").string() + " --shard 2/2");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("--shard '2/2' is not I/N"));
  r = kriek_cmd("library " + (dir.path / "one.txt").string() + " -o " + (dir.path / "x").string() + " --backend asm");
  CHECK_THAT(r.out, Contains("unknown --backend 'asm'"));
  // Not a kriek library: refused, nothing touched.
  fs::create_directories(dir.path / "mine");
  write(dir.path / "mine" / "notes.txt", "keep me");
  r = kriek_cmd("library " + (dir.path / "one.txt").string() + " -o " + (dir.path / "mine").string() + " --no-table");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("is not a kriek library"));
  CHECK(read(dir.path / "mine" / "notes.txt") == "keep me");
  // A directory that cannot be made: one line, exit 1, no crash.
  r = kriek_cmd("library " + (dir.path / "one.txt").string() + " -o /proc/kriek-library-test --no-table");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("kriek: error: ") && Contains("/proc/"));
  CHECK(r.out.find('\n') == r.out.size() - 1);
}

TEST_CASE("kriek library shards merge into the table a single run builds", "[tools][library]") {
  TempDir dir;
  const fs::path list = dir.path / "kernels.txt";
  write(list, kList);
  for (int i = 0; i < 2; ++i) {
    const Result r = kriek_cmd("library " + list.string() + " --shard " + std::to_string(i) + "/2 --table " +
                               (dir.path / ("s" + std::to_string(i) + ".table")).string());
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains("shard " + std::to_string(i) + "/2"));
  }
  REQUIRE(kriek_cmd("table merge " + (dir.path / "s0.table").string() + " " + (dir.path / "s1.table").string() +
                    " -o " + (dir.path / "merged.table").string())
              .status == 0);
  const Result built = kriek_cmd("library " + list.string() + " -o " + (dir.path / "lib").string() + " --table " +
                                 (dir.path / "merged.table").string());
  INFO(built.out);
  REQUIRE(built.status == 0);
  // Every Spec came from the merged table: nothing was searched.
  int searches = 0;
  for (std::size_t at = built.out.find("search: "); at != std::string::npos; at = built.out.find("search: ", at + 1)) {
    ++searches;
    CHECK(built.out.compare(at, 24, "search: 0 specs solved, ") == 0);
  }
  CHECK(searches == 3);
  const Result single = kriek_cmd("library " + list.string() + " -o " + (dir.path / "lib1").string() + " --table " +
                                  (dir.path / "one.table").string());
  REQUIRE(single.status == 0);
  // The same kernels: the installed headers and sources agree.
  CHECK(read(dir.path / "lib/include/kernels.h") == read(dir.path / "lib1/include/kernels.h"));
  REQUIRE(fs::exists(dir.path / "lib/src/mm.ll"));  // LLVM by default
  CHECK(read(dir.path / "lib/src/mm.ll") == read(dir.path / "lib1/src/mm.ll"));
}

TEST_CASE("mpirun -n 2 kriek library equals a single-process build", "[tools][library][mpi]") {
  if (run("command -v mpirun").status != 0) {
    WARN("mpirun is not installed: skipped");
    return;
  }
  TempDir dir;
  const fs::path list = dir.path / "kernels.txt";
  write(list, kList);
  const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -n 2 --oversubscribe ";
  const Result ranks = run(mpirun + KRIEK_BINARY + " library " + list.string() + " -o " + (dir.path / "mpi").string() +
                           " --threads 1 --table " + (dir.path / "mpi.table").string());
  INFO(ranks.out);
  REQUIRE(ranks.status == 0);
  CHECK_THAT(ranks.out, Contains("2 ranks synthesized into"));
  // The ranks made, verified and timed the kernels; rank 0 only assembled the library.
  CHECK_THAT(ranks.out, Contains("compiled, verified by another rank"));
  const Result single = kriek_cmd("library " + list.string() + " -o " + (dir.path / "one").string() +
                                  " --threads 1 --table " + (dir.path / "one.table").string());
  REQUIRE(single.status == 0);
  CHECK(read(dir.path / "mpi/include/kernels.h") == read(dir.path / "one/include/kernels.h"));
  // Built for the same machine: mpirun's binding of each rank to one core does not make a one-core target.
  const auto fingerprint = [](const std::string& manifest) {
    const std::size_t at = manifest.find("\"fingerprint\"");
    return at == std::string::npos ? std::string() : manifest.substr(at, 40);
  };
  CHECK(fingerprint(read(dir.path / "mpi/manifest.json")) == fingerprint(read(dir.path / "one/manifest.json")));
  CHECK_FALSE(fingerprint(read(dir.path / "one/manifest.json")).empty());
  for (const char* k : {"mm", "relu_rows", "rowsum"}) {
    const std::string source = std::string(k) + ".ll";
    REQUIRE(fs::exists(dir.path / "one/src" / source));
    CHECK(read(dir.path / "mpi/src" / source) == read(dir.path / "one/src" / source));
  }
  // The merged table holds what the single run's table holds.
  const std::string sorted = " | sort";
  CHECK(run(std::string(KRIEK_BINARY) + " table export " + (dir.path / "mpi.table").string() + sorted).out ==
        run(std::string(KRIEK_BINARY) + " table export " + (dir.path / "one.table").string() + sorted).out);
}

TEST_CASE("a C and a C++ program use the library through its CMake package, from either backend",
          "[tools][library][consumer]") {
  TempDir dir;
  // relu_big runs in parallel tiles (the DP's choice at this size): OpenMP from C, kriek's runtime from LLVM.
  write(dir.path / "kernels.txt", std::string(kList) + "relu_big = relu 2048x2048 f32\n");
  const std::string source = std::string(KRIEK_SOURCE_DIR) + "/test/consumer";
  for (const std::string backend : {"llvm", "c"}) {
    INFO("backend " << backend);
    const fs::path lib = dir.path / ("lib_" + backend), build = dir.path / ("build_" + backend);
    const Result made = kriek_cmd("library " + (dir.path / "kernels.txt").string() + " -o " + lib.string() +
                                  " --backend " + backend + " --table " + (dir.path / "t.table").string());
    INFO(made.out);
    REQUIRE(made.status == 0);
    const std::string manifest = read(lib / "manifest.json");
    CHECK_THAT(manifest, Contains("\"symbol\": \"relu_big\"") && Contains("\"parallel\": true") &&
                             Contains("\"backend\": \"" + backend + "\""));
    CHECK_THAT(read(lib / "include/kernels.h"),
               Contains(backend == "c" ? "runs parallel (OpenMP threads)" : "runs parallel (kriek's runtime threads"));
    const Result configure = run("cmake -S " + source + " -B " + build.string() + " -DCMAKE_PREFIX_PATH=" +
                                 lib.string() + " -DCMAKE_BUILD_TYPE=Release");
    INFO(configure.out);
    REQUIRE(configure.status == 0);
    const Result built = run("cmake --build " + build.string());
    INFO(built.out);
    REQUIRE(built.status == 0);
    CHECK(run((build / "consumer_c").string()).out == "ok\n");
    CHECK(run((build / "consumer_cpp").string()).out == "ok\n");
    const Result pc = run("PKG_CONFIG_PATH=" + (lib / "lib/pkgconfig").string() + " pkg-config --libs kernels");
    CHECK(pc.status == 0);  // the set-up installs pkg-config
    CHECK_THAT(pc.out, Contains("-lkernels"));
  }
}

TEST_CASE("kriek library draws a progress line on a terminal only", "[tools][library]") {
  if (run("command -v script").status != 0) {
    WARN("script (util-linux) is not installed: skipped");
    return;
  }
  TempDir dir;
  write(dir.path / "kernels.txt", kList);
  const std::string command = std::string(KRIEK_BINARY) + " library " + (dir.path / "kernels.txt").string() +
                              " -o " + (dir.path / "lib").string() + " --table " + (dir.path / "t.table").string();
  // script gives the command a terminal; a 1 ms redraw period draws the line while the searches run, however
  // fast they are.
  const Result tty = run("KRIEK_PROGRESS_MS=1 script -qec '" + command + "' /dev/null");
  INFO(tty.out);
  REQUIRE(tty.status == 0);
  CHECK_THAT(tty.out, Contains("\rlibrary ") && Contains("/3 | ") && Contains("\033[K"));
  // A period that is no number of milliseconds is named in one note; the command goes on.
  const Result bad_period = run("KRIEK_PROGRESS_MS=soon script -qec '" + command + "' /dev/null");
  CHECK(bad_period.status == 0);
  CHECK_THAT(bad_period.out, Contains("KRIEK_PROGRESS_MS='soon' is not a period of 1 to 60000 ms"));
  const Result piped = kriek_cmd("library " + (dir.path / "kernels.txt").string() + " -o " +
                                 (dir.path / "lib2").string() + " --table " + (dir.path / "t.table").string());
  REQUIRE(piped.status == 0);
  CHECK(piped.out.find('\r') == std::string::npos);
  CHECK(piped.out.find("\033[K") == std::string::npos);
}

TEST_CASE("the lists in examples parse as kriek library lists", "[tools][library]") {
  // An empty shard parses the whole list (every Spec, name and line) and synthesizes nothing: each example the
  // README names stays a list `kriek library` takes, one kernel per entry.
  TempDir dir;
  int lists = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(KRIEK_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".txt") continue;
    ++lists;
    std::ifstream in(e.path());
    int entries = 0;
    for (std::string line; std::getline(in, line);) {
      const auto first = line.find_first_not_of(" \t");
      entries += first != std::string::npos && line[first] != '#';
    }
    const Result r = kriek_cmd("library " + e.path().string() + " -o " + (dir.path / "lib").string() +
                               " --table " + (dir.path / "t.table").string() + " --shard 9999/10000");
    INFO(e.path().string() << ": " << r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("0 of " + std::to_string(entries) + " Specs synthesized"));
    CHECK_FALSE(fs::exists(dir.path / "lib"));
  }
  CHECK(lists >= 3);
}

TEST_CASE("kriek library says a --memory limit below a memory class once, not once per kernel", "[tools][library]") {
  TempDir dir;
  write(dir.path / "two.txt", "a = matmul 4x4x16 f32\nb = matmul 8x4x16 f32\n");
  const Result r = kriek_cmd("library " + (dir.path / "two.txt").string() + " -o " + (dir.path / "lib").string() +
                             " --no-table --memory L1=512");
  INFO(r.out);
  CHECK(r.status == 0);
  const std::string note = "is below L1's smallest memory class";
  const std::size_t first = r.out.find(note);
  REQUIRE(first != std::string::npos);
  CHECK(r.out.find(note, first + 1) == std::string::npos);
}
