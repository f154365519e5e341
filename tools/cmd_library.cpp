// `kriek library LIST -o DIR`: a kernel library from a list of Specs (see tools/library.h); `--shard I/N`
// synthesizes only every N-th Spec starting at I into the DP table, for batch systems that run independent jobs
// whose tables `kriek table merge` combines before the final build; under `mpirun -n N` the ranks share one
// table, each Spec's search reading what the others saved, and rank 0 builds.
#include <algorithm>
#include <cctype>
#include <numeric>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cache/table_tools.h"
#include "codegen/backend.h"
#include "codegen/compile.h"
#include "spec/error.h"
#include "spec/text.h"
#include "spec/user_file.h"
#include "tools/library.h"
#include "tools/mpi_session.h"
#include "tools/synthesis.h"
#include "tools/tuning.h"

namespace kriek::tools {
namespace {

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  std::size_t index = 0, count = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> index >> slash >> count) || slash != '/' || !in.eof() || count == 0 || index >= count) {
    user_error("--shard '", text, "' is not I/N with 0 <= I < N");
  }
  return {index, count};
}

/// The Args with `--table` set to `table` (and no --no-table).
Args with_table(const Args& args, const std::string& table) {
  Args out = args;
  std::erase_if(out.flags, [](const auto& f) { return f.first == "--table" || f.first == "--no-table"; });
  out.flags.emplace_back("--table", table);
  return out;
}

/// Synthesizes `entries` into the table named in `args`, one line per Spec on stdout.
void synthesize_all(const std::vector<LibraryEntry>& entries, const Args& args) {
  for (const LibraryEntry& e : entries) {
    Synthesis s = synthesize(e.spec_text, args);
    std::cout << e.symbol << ": " << s.stats_line() << "\n";
    s.save_table();
  }
}

struct RankedTable {
  Args args;                        ///< the Args rank 0 builds with: `--table` the shared table
  std::filesystem::path temporary;  ///< with --no-table, the directory of the shared table, removed after the build
  std::filesystem::path prebuilt;   ///< the kernels' objects and measurements the ranks made, removed after it
};

/// Under mpirun: every rank synthesizes the Specs it takes from a shared counter (its own process, so its own TBB
/// arena) into the library's table itself: writers never wait for each other (each save is a segment of its own),
/// and each Spec's search opens the table afresh, so it reads what the other ranks saved before it started. The
/// rank that synthesized a Spec also makes, verifies and times its kernel (prebuild_kernel) into a directory the
/// build takes them from, so rank 0 only assembles the library.
/// Returns what rank 0 builds with (every Spec then cached), or nullopt on the other ranks.
std::optional<RankedTable> synthesize_over_ranks(MpiSession& mpi, const std::vector<LibraryEntry>& entries,
                                                 const Args& args, const Target& target,
                                                 const LibraryOptions& options) {
  namespace fs = std::filesystem;
  RankedTable out;
  out.prebuilt = mpi.broadcast(mpi.rank() == 0 ? codegen::make_temp_dir().string() : "");
  std::string shared;
  if (const auto* t = args.get("--table")) {
    shared = *t;
  } else if (args.has("--no-table")) {
    out.temporary = mpi.broadcast(mpi.rank() == 0 ? codegen::make_temp_dir().string() : "");
    shared = (out.temporary / "shared.table").string();
  } else {
    shared = default_table_path(target).string();
  }
  out.args = with_table(args, shared);
  bool ok = true;
  // Ranks take the next Spec as they finish one (search times differ by orders of magnitude between Specs, so
  // fixed shards leave ranks idle), the most work first so that the last ones taken are short: ResNet-18's
  // list on 2 ranks, 1 thread each, 1.47-1.56x one rank in list order.
  std::vector<std::size_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return flop_count(entries[a].spec) > flop_count(entries[b].spec); });
  mpi.start_counter();
  try {
    for (std::size_t n = mpi.next_index(); n < entries.size(); n = mpi.next_index()) {
      const std::size_t i = order[n];
      synthesize_all({entries[i]}, out.args);
      try {
        prebuild_kernel(entries[i], out.args, options, out.prebuilt);
      } catch (const UserError&) {
        // compiler errors too: rank 0's build makes this kernel again and reports why it fails (or skips it with
        // --keep-going)
      }
    }
  } catch (const UserError& e) {
    std::cerr << "kriek: error: rank " << mpi.rank() << ": " << e.what() << "\n";
    ok = false;  // the other ranks take the Specs left; the barrier below tells them this one failed
  }
  mpi.stop_counter();
  if (!mpi.barrier(ok)) {
    if (mpi.rank() != 0) return std::nullopt;
    std::error_code ec;
    if (!out.temporary.empty()) fs::remove_all(out.temporary, ec);
    fs::remove_all(out.prebuilt, ec);
    user_error("a rank failed to synthesize its share (see its message above)");
  }
  if (mpi.rank() != 0) return std::nullopt;
  std::cerr << "kriek: " << mpi.size() << " ranks synthesized into " << shared << "\n";
  return out;
}

}  // namespace

int run_library(const std::vector<std::string>& raw) {
  MpiSession mpi;  // first: under mpirun it lets this rank see every core before the host is detected
  std::vector<std::string_view> valued = kSynthValued;
  valued.insert(valued.end(), {"-o", "--name", "--backend", "--shard", "--tune"});
  std::vector<std::string_view> switches = kSynthSwitches;
  switches.push_back("--keep-going");
  const Args args = parse_args(raw, valued, switches);
  if (args.positional.size() != 1) user_error("usage: kriek library LIST -o DIR [--name NAME] (see kriek --help)");
  const std::string list_file = args.positional[0];
  const std::string text = read_user_file(list_file, "the list");
  const Target target = command_target(args);
  std::vector<LibraryEntry> entries = parse_library_list(text, list_file, target);
  LibraryOptions options;
  if (const auto* backend = args.get("--backend")) options.backend = codegen::parse_backend(*backend);
  if (args.get("--tune")) {
    options.tune = static_cast<std::size_t>(positive_flag(args, "--tune", 8));
    if (args.get("--shard")) {
      user_error("--tune times kernels, so the final build tunes them: drop it from --shard jobs");
    }
    require_tuning(args, target, "kriek library --tune");
  }

  if (const auto* shard = args.get("--shard")) {
    const auto [index, count] = parse_shard(*shard);
    const auto mine = shard_of(entries, index, count);
    synthesize_all(mine, args);
    std::cout << "shard " << index << "/" << count << ": " << mine.size() << " of " << entries.size()
              << " Specs synthesized; merge the shards' tables with kriek table merge, then build with "
                 "kriek library --table MERGED\n";
    return 0;
  }

  const std::string* dir = args.get("-o");
  if (!dir) user_error("kriek library needs -o DIR");
  options.out = *dir;
  options.list_file = list_file;
  options.keep_going = args.has("--keep-going");
  if (const auto* name = args.get("--name")) {
    options.name = *name;
  } else {
    options.name = std::filesystem::path(list_file).stem().string();
    // The list's file name with every character a C identifier cannot hold as '_'.
    for (char& c : options.name) c = is_c_identifier(std::string(1, c)) || std::isdigit(static_cast<unsigned char>(c)) ? c : '_';
  }
  if (!is_c_identifier(options.name)) user_error("--name '", options.name, "' is not a C identifier");

  Args build_args = args;
  std::vector<codegen::RemoveAtExit> temporary;  // removed once the build is done, whatever its outcome
  if (mpi.size() > 1) {
    auto ranked = synthesize_over_ranks(mpi, entries, args, target, options);
    if (!ranked) return 0;
    build_args = ranked->args;
    if (!ranked->temporary.empty()) temporary.emplace_back(ranked->temporary);
    temporary.emplace_back(ranked->prebuilt);
    options.prebuilt = ranked->prebuilt;
  }
  const LibraryReport report = build_library(entries, build_args, options);
  for (const auto& [e, why] : report.failed) {
    std::cerr << "kriek: skipped " << list_file << ":" << e.line << " (" << e.symbol << "): " << why << "\n";
  }
  std::cout << "library " << options.name << ": " << report.kernels.size() << " kernels in " << options.out.string()
            << " (" << report.compiled << " compiled, " << report.kernels.size() - report.compiled << " unchanged";
  if (!report.failed.empty()) std::cout << ", " << report.failed.size() << " skipped";
  std::cout << "), " << std::fixed << std::setprecision(2) << report.seconds << " s\n";
  return report.failed.empty() ? 0 : 1;
}

}  // namespace kriek::tools
