// The kriek program end to end: spec check, target, synth, help, version and the error paths, run as a user
// would (exit status, stdout, one-line stderr).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/run_command.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace {

using Result = kriek::testing::CommandResult;

/// Runs kriek with `args` (shell-quoted by the caller).
Result run_kriek(const std::string& args) { return kriek::testing::run_command(std::string(KRIEK_BINARY) + " " + args); }

}  // namespace

TEST_CASE("kriek spec check prints the long form, which checks to itself", "[tools]") {
  const Result r = run_kriek("spec check 'matmul 128x256x64 f32'");
  CHECK(r.status == 0);
  CHECK(r.out == "matmul (128x256 f32 GL row, 256x64 f32 GL row -> 128x64 f32 GL row)\n");
  const Result again = run_kriek("spec check '" + r.out.substr(0, r.out.size() - 1) + "'");
  CHECK(again.out == r.out);
}

TEST_CASE("kriek spec check of bad text exits 1 with one marked line", "[tools][errors]") {
  const Result r = run_kriek("spec check 'matmul 128x256 f32'");
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Contains("kriek: error:") && Contains(">>128x256<<"));
  CHECK(r.out.find('\n') == r.out.size() - 1);
}

TEST_CASE("kriek target reports the host", "[tools]") {
  const Result r = run_kriek("target");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("isa") && Contains("L1") && Contains("L2") && Contains("-way"));
  CHECK_THAT(r.out, Contains("C flags -march=native"));
  CHECK_THAT(run_kriek("target --target avx2").out, Contains("C flags -march=haswell"));
  CHECK(run_kriek("target --target nonsense").status == 1);
}

TEST_CASE("kriek synth prints the Impl with costs and statistics", "[tools]") {
  const Result r = run_kriek("synth 'matmul 8x8x16 f32' --frontier --no-table");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("bcast_fma") && Contains("cost ") && Contains("specs solved") && Contains("frontier ("));
  const Result tight = run_kriek("synth 'matmul 8x8x16 f32' --memory VRF=32,RF=2 --no-table");
  CHECK(tight.status == 1);
  CHECK_THAT(tight.out, Contains("fits the memory limits") && Contains("VRF=32 RF=2; the leanest needs"));
  // Three 1 KiB operands in 2 KiB of registers: no Impl at all, which no memory limit would change.
  const std::string vrf = "16x16 f32 VRF row v16";
  const Result none =
      run_kriek("synth 'matmul (" + vrf + ", " + vrf + " -> " + vrf + ")' --target avx512 --no-table");
  CHECK(none.status == 1);
  CHECK_THAT(none.out, Contains("exists on avx512 at any memory limit"));
  CHECK_THAT(run_kriek("synth 'matmul 8x8x16 f32' --memory L1=lots --no-table").out, Contains("has no byte count"));
  const Result fine = run_kriek("synth 'matmul 8x8x16 f32' --memory L1=512 --no-table");
  CHECK(fine.status == 0);
  CHECK_THAT(fine.out, Contains("note: --memory L1=512 is below L1's smallest memory class"));
  CHECK_THAT(run_kriek("synth 'matmul 8x8x16 f32' --memory L1=0 --no-table").out, !Contains("smallest memory class"));
  // Limits below a register level's capacity: a search that tells every register class apart, in a table of its
  // own, whose pick is as cheap as the plans within VRF=1K allow (a default search's frontier would hold 13x).
  const kriek::testing::TempDir dir;
  const std::string table = (dir.path() / "t.table").string();
  const Result registers = run_kriek("synth 'matmul 64x64x64 f32' --target avx512 --memory VRF=1K --table " + table);
  CHECK(registers.status == 0);
  CHECK(std::filesystem::exists(dir.path() / "t.registers.table"));
  CHECK_FALSE(std::filesystem::exists(table));
  const Result whole = run_kriek("synth 'matmul 64x64x64 f32' --target avx512 --no-table");
  const auto cost = [](const std::string& out) { return std::stoll(out.substr(out.rfind("\ncost ") + 6)); };
  REQUIRE(whole.status == 0);
  CHECK(cost(registers.out) < 2 * cost(whole.out));
  const Result queried = run_kriek("query 'matmul 64x64x64 f32' --target avx512 --memory VRF=1K --table " + table);
  CHECK(queried.status == 0);
  CHECK_THAT(run_kriek("synth 'matmul 8x8x16 f32' --threads 0 --no-table").out, Contains("--threads takes a positive number"));
}

TEST_CASE("kriek synth --max-memory spills solved frontiers and prints the same Impl", "[tools]") {
  const auto impl = [](const std::string& out) { return out.substr(0, out.find("search: ")); };
  const Result plain = run_kriek("synth 'matmul 16x16x32 f32' --no-table");
  const Result budget = run_kriek("synth 'matmul 16x16x32 f32' --no-table --max-memory 1M");
  REQUIRE(plain.status == 0);
  CHECK(budget.status == 0);
  CHECK(impl(budget.out) == impl(plain.out));
  CHECK_THAT(budget.out, Contains("spilled"));
  const Result bad = run_kriek("synth 'matmul 8x8x16 f32' --no-table --max-memory lots");
  CHECK(bad.status == 1);
  CHECK_THAT(bad.out, Contains("--max-memory 'lots' is not a byte count"));
}

TEST_CASE("kriek synth --sparse keeps its own table beside the given one and says how many Specs it estimated",
          "[tools]") {
  kriek::testing::TempDir dir;
  const std::string table = (dir.path() / "t.table").string();
  const Result r = run_kriek("synth 'matmul 256x256x256 f32' --sparse --table " + table);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("bcast_fma") && Contains("of the Specs from a neighbour's decisions") &&
                        Contains("t.sparse2.table ("));
  CHECK_FALSE(std::filesystem::exists(table));
  CHECK(std::filesystem::exists(dir.path() / "t.sparse2.table"));
  // The second search reads the first's frontiers: the same Impl, nothing searched.
  const Result again = run_kriek("synth 'matmul 256x256x256 f32' --sparse --table " + table);
  REQUIRE(again.status == 0);
  CHECK(again.out.substr(0, again.out.find("table: ")) == r.out.substr(0, r.out.find("table: ")));
  CHECK_THAT(again.out, Contains("search: 0 specs solved"));
  // kriek query answers from the sparse table with --sparse (the same Impl), and without it from the given one,
  // which the sparse search never wrote.
  const Result q = run_kriek("query 'matmul 256x256x256 f32' --sparse --table " + table);
  REQUIRE(q.status == 0);
  const std::string cost = r.out.substr(r.out.find("\ncost ") + 6, r.out.find(" (1/16") - r.out.find("\ncost ") - 6);
  CHECK_THAT(q.out, Contains("* 0  cost " + cost + " "));
  const Result plain = run_kriek("query 'matmul 256x256x256 f32' --table " + table);
  CHECK(plain.status == 1);
  CHECK_THAT(plain.out, Contains("no DP table at"));
  const Result small = run_kriek("synth 'matmul 16x16x16 f32' --sparse --no-table");
  CHECK_THAT(small.out, Contains("sparse: exhaustive all the same (fewer than 524288 floating-point operations)"));
}

TEST_CASE("help, version, unknown and unbuilt subcommands", "[tools][errors]") {
  CHECK_THAT(run_kriek("--help").out, Contains("kriek spec check") && Contains("kriek synth"));
  CHECK(run_kriek("--help").status == 0);
  CHECK_THAT(run_kriek("--version").out, Contains("kriek 0.1.0"));
  const Result unknown = run_kriek("frobnicate");
  CHECK(unknown.status == 1);
  CHECK_THAT(unknown.out, Contains("unknown subcommand 'frobnicate'"));
  CHECK_THAT(run_kriek("spec check 'relu 4x4 f32' --bogus").out, Contains("unknown option '--bogus'"));
}

TEST_CASE("input files that are directories or missing are one-line errors naming them", "[tools][errors]") {
  const kriek::testing::TempDir dir;
  const std::string d = dir.path().string();
  const std::string missing = d + "/missing";
  for (const std::string& args : {"script " + d, "library " + d + " -o " + d + "/lib",
                                  "synth 'relu 4x16 f32' --no-table --profile " + d, "target --from-cpuid " + d}) {
    const Result r = run_kriek(args);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("'" + d + "' is a directory"));
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  }
  const Result script = run_kriek("script " + missing);
  CHECK(script.status == 1);
  CHECK_THAT(script.out, Contains("cannot read the script '" + missing + "'"));
}

TEST_CASE("kriek emit prints C or the Impl, -o writes a file, bad flags are one-line errors", "[tools][codegen]") {
  const Result c = run_kriek("emit 'matmul 8x8x16 f32' --no-table --target avx512");
  CHECK(c.status == 0);
  CHECK_THAT(c.out, Contains("void kriek_matmul_8x8_8x16_f32(const float *restrict lhs, const float *restrict rhs, "
                             "float *restrict out)") &&
                        Contains("_mm512_fmadd_ps") && Contains("// Spec: matmul (8x8 f32 GL row"));
  const Result impl = run_kriek("emit 'matmul 8x8x16 f32' --no-table --target avx512 --format impl");
  CHECK_THAT(impl.out, Contains("bcast_fma(") && Contains("# matmul (8x8 GL, 8x16 GL -> 8x16 GL)"));
  const kriek::testing::TempDir dir;
  const std::string file = (dir / "cli_emit.c").string();
  const Result named = run_kriek("emit 'relu 4x16 f32' --no-table --name my_relu -o " + file);
  CHECK(named.status == 0);
  CHECK(named.out.empty());
  CHECK(kriek::testing::run_command("grep -c 'void my_relu(' " + file).out == "1\n");
  CHECK_THAT(run_kriek("emit 'relu 4x16 f32' --no-table --format asm").out,
             Contains("unknown --format 'asm' (expected c, llvm, obj or impl)"));
  CHECK_THAT(run_kriek("emit 'relu 4x16 f32' --no-table --name 9lives").out, Contains("--name '9lives' is not a C identifier"));
  const Result unwritable = run_kriek("emit 'relu 4x16 f32' --no-table -o /nonexistent/dir/k.c");
  CHECK(unwritable.status == 1);
  CHECK_THAT(unwritable.out, Contains("cannot write '/nonexistent/dir/k.c'"));
}

TEST_CASE("kriek run --backend c synthesizes, compiles, verifies and times", "[tools][codegen]") {
  const Result r = run_kriek("run 'matmul 8x8x32 f32' --no-table --seed 5 --backend c");
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("bcast_fma(") && Contains("kernel: kriek_matmul_8x8_8x32_f32") &&
                        Contains("verified: max error") && Contains("seed 5") && Contains("GFLOP/s") &&
                        Contains("% of the measured single-core peak"));
  CHECK_THAT(r.out, !Contains("LLVM JIT"));
  const kriek::testing::TempDir dir;
  const std::string keep = (dir / "keep").string();
  const Result kept = run_kriek("run 'add 3x20 1x20 f32' --no-table --backend c --keep " + keep);
  CHECK(kept.status == 0);
  CHECK_THAT(kept.out, Contains("source " + keep + "/kriek_add_3x20_1x20_f32.c"));
  CHECK_THAT(run_kriek("run 'relu 4x16 f32' --no-table --seed -3").out, Contains("--seed takes a positive number"));
  const Result bad_cc = kriek::testing::run_command("CC=/nonexistent/cc " + std::string(KRIEK_BINARY) +
                                                    " run 'relu 4x16 f32' --no-table --backend c");
  CHECK(bad_cc.status == 1);
  CHECK_THAT(bad_cc.out, Contains("cannot run '/nonexistent/cc'") && Contains("the source is kept at"));
}

TEST_CASE("kriek run --backend llvm JIT-compiles in process and needs no C compiler", "[tools][codegen][llvm]") {
  // CC names a missing program: the LLVM backend (and its peak probe) never runs a compiler.
  const Result r = kriek::testing::run_command("CC=/nonexistent/cc " + std::string(KRIEK_BINARY) +
                                               " run 'matmul 8x8x32 f32' --no-table --backend llvm --seed 5");
  // LLVM is the default backend.
  const Result by_default = kriek::testing::run_command("CC=/nonexistent/cc " + std::string(KRIEK_BINARY) +
                                                        " run 'relu 4x16 f32' --no-table");
  CHECK(by_default.status == 0);
  CHECK_THAT(by_default.out, Contains("LLVM JIT") && Contains("verified: max error"));
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("kernel: kriek_matmul_8x8_8x32_f32") && Contains("LLVM JIT") &&
                        Contains("verified: max error") && Contains("seed 5") && Contains("GFLOP/s"));
  const kriek::testing::TempDir dir;
  const std::string keep = (dir / "keep").string();
  const Result kept = run_kriek("run 'add 3x20 1x20 f32' --no-table --backend llvm --keep " + keep);
  CHECK(kept.status == 0);
  CHECK_THAT(kept.out, Contains("source " + keep + "/kriek_add_3x20_1x20_f32.ll"));
  CHECK(std::filesystem::exists(keep + "/kriek_add_3x20_1x20_f32.ll"));
  const Result bad = run_kriek("run 'relu 4x16 f32' --no-table --backend gcc");
  CHECK(bad.status == 1);
  CHECK(bad.out == "kriek: error: unknown --backend 'gcc' (expected llvm or c)\n");
}

TEST_CASE("kriek emit --format llvm prints IR, --format obj writes a position-independent object", "[tools][codegen][llvm]") {
  const Result ir = run_kriek("emit 'matmul 8x8x16 f32' --no-table --target avx512 --format llvm");
  CHECK(ir.status == 0);
  CHECK_THAT(ir.out, Contains("define void @kriek_matmul_8x8_8x16_f32(ptr noalias %lhs, ptr noalias %rhs, ptr noalias %out)") &&
                         Contains("@llvm.fma.v16f32") && Contains("\"prefer-vector-width\"=\"512\""));
  const kriek::testing::TempDir dir;
  const std::string object = (dir / "k.o").string();
  const Result obj = run_kriek("emit 'relu 4x16 f32' --no-table --format obj --name my_relu -o " + object);
  CHECK(obj.status == 0);
  CHECK(obj.out.empty());
  CHECK(kriek::testing::run_command("readelf -h " + object + " | grep -c 'REL (Relocatable file)'").out == "1\n");
  CHECK(kriek::testing::run_command("nm " + object + " | grep -c ' T my_relu$'").out == "1\n");
  // Position-independent: it links into a shared library.
  const std::string library = (dir / "libk.so").string();
  CHECK(kriek::testing::run_command("cc -shared -o " + library + " " + object).status == 0);
  CHECK_THAT(run_kriek("emit 'relu 4x16 f32' --no-table --format obj").out, Contains("--format obj writes an object file"));
  // The DP runs relu 2048x2048 in parallel tiles, whose loops need kriek's runtime: refused, nothing written.
  const Result parallel = run_kriek("emit 'relu 2048x2048 f32' --no-table --format obj -o " + (dir / "p.o").string());
  CHECK(parallel.status == 1);
  CHECK_THAT(parallel.out, Contains("has parallel loops, which run on kriek's runtime"));
  CHECK_FALSE(std::filesystem::exists(dir / "p.o"));
}

TEST_CASE("every subcommand answers --help and -h with its entry of README.md's command list", "[tools]") {
  std::ifstream in(std::string(KRIEK_SOURCE_DIR) + "/README.md");
  const std::string readme{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto start = readme.find("```\n", readme.find("## The kriek command"));
  REQUIRE(start != std::string::npos);
  const std::string block = readme.substr(start + 4, readme.find("```", start + 4) - start - 4);
  // An entry: the lines from "kriek NAME" up to the next line that starts with "kriek ".
  const auto entry = [&](const std::string& name) {
    const auto from = block.find("kriek " + name + " ");
    if (from == std::string::npos) return std::string();
    const auto to = block.find("\nkriek ", from);
    return block.substr(from, to == std::string::npos ? std::string::npos : to + 1 - from);
  };
  for (const char* name : {"spec", "target", "synth", "emit", "run", "query", "table", "repl", "script"}) {
    INFO("kriek " << name);
    const std::string expected = entry(name);
    REQUIRE_FALSE(expected.empty());
    for (const char* flag : {" --help", " -h"}) {
      const Result r = kriek::testing::run_command(std::string(KRIEK_BINARY) + " " + name + flag + " 2>/dev/null");
      CHECK(r.status == 0);
      CHECK(r.out == expected);
    }
  }
  CHECK(run_kriek("synth 'matmul 8x8x8 f32' --help").out == entry("synth"));  // wherever the flag stands
  const Result all = run_kriek("--help");
  CHECK(all.status == 0);
  CHECK_THAT(all.out, Contains(block));
}

TEST_CASE("a Spec whose operands exceed the machine's memory is refused before any search", "[tools][errors]") {
  for (const char* command : {"synth", "emit", "run"}) {
    INFO("kriek " << command);
    const Result r = run_kriek(std::string(command) + " 'matmul 1000000x1000000x1000000 f32' --no-table");
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("kriek: error: the operands of matmul (1000000x1000000 f32 GL row") &&
                          Contains("need 12000000000000 bytes (11175.9 GiB) but this machine has"));
    CHECK(r.out.find('\n') == r.out.size() - 1);
    CHECK_THAT(r.out, !Contains("search:"));
  }
}

TEST_CASE("kriek spec check of a bad conv stride or padding exits 1 with one line", "[tools][errors]") {
  for (const char* text : {"conv[stride=0] 8x8 3x3x2 f32", "conv[pad=3] 8x8 3x3x2 f32"}) {
    const Result r = run_kriek(std::string("spec check '") + text + "'");
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("kriek: error: conv"));
    CHECK(r.out.find('\n') == r.out.size() - 1);
  }
  const Result ok = run_kriek("spec check 'conv[stride=2,pad=1] 1x28x28x8 3x3x8x16 f32'");
  CHECK(ok.status == 0);
  CHECK_THAT(ok.out, Contains("conv[stride=2,pad=1] (1x28x28x8 f32 GL row") && Contains("-> 1x14x14x16 f32"));
}
