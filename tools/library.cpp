// Building a kernel library (see library.h): synthesis through the shared DP table, each kernel's object from its
// backend, the object cache of the previous build, per-kernel verification in a library of its own, and the atomic
// swap of the output directory.
#include "tools/library.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "spec/stable_hash.h"
#include "codegen/compile.h"
#include "codegen/emit_c.h"
#include "codegen/emit_llvm.h"
#include "codegen/kernel_runtime.h"
#include "codegen/measure.h"
#include "spec/error.h"
#include "tools/progress_line.h"
#include "tools/synthesis.h"
#include "tools/tuning.h"

namespace kriek::tools {
namespace fs = std::filesystem;
namespace {

/// The object cache inside a library directory: <hash>.o and <hash>.result ("max_error tolerance gflops").
fs::path cache_dir(const fs::path& library) { return library / ".kriek" / "objects"; }

/// The kernel's code in `backend`: C, or the LLVM module an object is built from.
KernelCode kernel_code(const ImplPtr& impl, const Target& target, const std::string& symbol, codegen::Backend backend) {
  switch (backend) {
    case codegen::Backend::c: {
      codegen::CSource c = codegen::emit_c(impl, target, symbol);
      return KernelCode{backend, impl, std::move(c.code), std::move(c.parameters), c.workspace_bytes, c.uses_openmp};
    }
    case codegen::Backend::llvm: {
      codegen::LlvmSource l = codegen::emit_llvm_source(impl, target, symbol);
      return KernelCode{backend, impl, std::move(l.ir), std::move(l.parameters), l.workspace_bytes, l.parallel};
    }
  }
  KRIEK_ASSERT(false, "unknown backend");
}

codegen::CSource c_source(const KernelCode& code, const std::string& symbol) {
  return codegen::CSource{code.text, symbol, code.workspace_bytes, code.parallel, code.parameters};
}

/// The file name of a kernel's code under src/: SYMBOL.c or SYMBOL.ll.
std::string source_file(const LibraryKernel& k) {
  switch (k.code.backend) {
    case codegen::Backend::c: return k.entry.symbol + ".c";
    case codegen::Backend::llvm: return k.entry.symbol + ".ll";
  }
  KRIEK_ASSERT(false, "unknown backend");
}

/// The object cache's key: the code and what makes the object of it (the compiler and its flags for C; the LLVM
/// version and CPU are in the IR's text).
std::string source_hash(const LibraryKernel& k, const Target& target) {
  std::string key = std::string(codegen::backend_name(k.code.backend)) + "\n" + k.code.text;
  if (k.code.backend == codegen::Backend::c) {
    for (const auto& arg : codegen::compile_command(c_source(k.code, k.entry.symbol), target, "kernel.c", "kernel.o")) {
      key += "\n" + arg;
    }
  }
  return hex16(stable_hash(key));
}

bool read_result(const fs::path& file, LibraryKernel& k) {
  std::ifstream in(file);
  return static_cast<bool>(in >> k.max_error >> k.tolerance >> k.gflops);
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out.flush()) user_error("cannot write ", path.string());
}

/// Copies a failing kernel's code out of the staging directory (which goes away) and returns where it is.
std::string keep_source(const fs::path& work, const LibraryKernel& k) {
  const fs::path kept = codegen::make_temp_dir() / source_file(k);
  std::error_code ec;
  fs::copy_file(work / source_file(k), kept, ec);
  return kept.string();
}

/// Makes the kernel's object in `work`; a failure names where its code is kept.
fs::path build_object(const LibraryKernel& k, const Target& target, const fs::path& work) {
  try {
    switch (k.code.backend) {
      case codegen::Backend::c: return codegen::compile_object(c_source(k.code, k.entry.symbol), target, work);
      case codegen::Backend::llvm: {
        write_text(work / source_file(k), k.code.text);
        const fs::path object = work / (k.entry.symbol + ".o");
        codegen::write_llvm_object(k.code.impl, target, object, k.entry.symbol);
        return object;
      }
    }
    KRIEK_ASSERT(false, "unknown backend");
  } catch (const codegen::CompileError& e) {
    std::string message = e.what();
    message = message.substr(0, message.rfind("\nthe source is kept at"));
    throw codegen::CompileError(message + "\nthe source is kept at " + keep_source(work, k));
  }
}

/// What `kernels` need linked.
LibraryLinks links_of(const std::vector<const LibraryKernel*>& kernels) {
  LibraryLinks links;
  for (const LibraryKernel* k : kernels) {
    switch (k->code.backend) {
      case codegen::Backend::c: links.openmp |= k->code.parallel; break;
      case codegen::Backend::llvm: links.runtime |= k->code.parallel; break;
    }
  }
  return links;
}

/// `objects` and, when `links` asks for it, kriek's runtime object (written into `dir` once).
std::vector<fs::path> with_runtime(std::vector<fs::path> objects, LibraryLinks links, const fs::path& dir) {
  if (!links.runtime) return objects;
  const fs::path runtime = dir / "kriek_runtime.o";
  if (!fs::exists(runtime)) {
    std::ofstream out(runtime, std::ios::binary);
    const std::string_view bytes = codegen::kernel_runtime_object();
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) user_error("cannot write ", runtime.string());
  }
  objects.push_back(runtime);
  return objects;
}

/// Links `objects` of `kernels` into the shared library `so`, with what they need.
void link_library(const std::vector<fs::path>& objects, const std::vector<const LibraryKernel*>& kernels,
                  const fs::path& work, const fs::path& so) {
  const LibraryLinks links = links_of(kernels);
  codegen::link_shared_library(with_runtime(objects, links, work), links.openmp, so,
                               links.runtime ? codegen::kKernelRuntimeLibraries : std::vector<std::string>{});
}

/// The library's progress line on a terminal (progress_line.h): a bar of the kernels done, and the running
/// kernel's stage as a bar of its own; the search's counters follow while it searches.
class BuildProgress {
 public:
  enum class Stage : std::uint8_t { search, tune, code, object, verify, time };

  explicit BuildProgress(std::size_t total) : total_(total) {}
  void kernel(std::size_t index, const std::string& symbol) {
    std::lock_guard<std::mutex> lock(mutex_);
    index_ = index;
    symbol_ = symbol;
    stage_ = Stage::search;
  }
  void stage(Stage s) {
    std::lock_guard<std::mutex> lock(mutex_);
    stage_ = s;
  }
  /// Writes whole lines to stderr above the progress line.
  void print(const std::string& text) { line_.print(text); }

 private:
  static const char* name(Stage s) {
    switch (s) {
      case Stage::search: return "search";
      case Stage::tune: return "tune";
      case Stage::code: return "code";
      case Stage::object: return "object";
      case Stage::verify: return "verify";
      case Stage::time: return "time";
    }
    return "?";
  }
  std::string render() {
    std::lock_guard<std::mutex> lock(mutex_);
    const int stages = static_cast<int>(Stage::time) + 1;
    std::ostringstream out;
    out << "library " << ProgressLine::bar(static_cast<double>(index_) / static_cast<double>(total_), 20) << " "
        << index_ << "/" << total_ << " | " << symbol_ << " "
        << ProgressLine::bar(static_cast<double>(static_cast<int>(stage_) + 1) / stages, stages) << " "
        << name(stage_);
    return out.str();
  }

  std::mutex mutex_;
  std::size_t total_, index_ = 0;
  std::string symbol_;
  Stage stage_ = Stage::search;
  ProgressLine line_{[this] { return render(); }};  ///< last: stops drawing before the state above goes
};

/// Verifies and times the kernel in a shared library of its own; returns an error text, empty when it verified.
std::string verify_kernel(const fs::path& object, LibraryKernel& k, const fs::path& work, double budget,
                          BuildProgress& progress) {
  progress.stage(BuildProgress::Stage::verify);
  const fs::path so = work / (k.entry.symbol + ".so");
  link_library({object}, {&k}, work, so);
  const codegen::LoadedKernel kernel = codegen::LoadedKernel::load(so, k.entry.symbol);
  const Verification v = codegen::verify(kernel, k.entry.spec, 1);
  k.max_error = v.max_error;
  k.tolerance = v.tolerance;
  if (!v.ok()) {
    std::ostringstream why;
    why << "the kernel disagrees with the reference: max error " << v.max_error << " at output element " << v.worst
        << " (tolerance " << v.tolerance << "); its source is kept at " << keep_source(work, k);
    return why.str();
  }
  progress.stage(BuildProgress::Stage::time);
  k.gflops = codegen::time_kernel(kernel, k.entry.spec, budget).gflops;
  return "";
}

/// Replaces `out` by `staging` so that readers see either the old library or the new one, never a mix.
void install(const fs::path& staging, const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out)) {
    const fs::path old = out.string() + ".old-" + std::to_string(getpid());
    fs::rename(out, old, ec);
    if (ec) user_error("cannot replace ", out.string(), ": ", ec.message());
    fs::rename(staging, out, ec);
    if (ec) {
      fs::rename(old, out);
      user_error("cannot install the library into ", out.string(), ": ", ec.message());
    }
    fs::remove_all(old, ec);
    return;
  }
  fs::rename(staging, out, ec);
  if (ec) user_error("cannot install the library into ", out.string(), ": ", ec.message());
}

/// The first of `dirs` (empty ones skipped) holding `k`'s object and measurements, which it reads into k; empty
/// when none does.
fs::path find_built(LibraryKernel& k, std::initializer_list<fs::path> dirs) {
  for (const fs::path& dir : dirs) {
    if (!dir.empty() && fs::exists(dir / (k.source_hash + ".o")) && read_result(dir / (k.source_hash + ".result"), k)) {
      return dir;
    }
  }
  return {};
}

/// The measurements as <hash>.result holds them.
std::string result_text(const LibraryKernel& k) {
  std::ostringstream result;
  result << std::setprecision(9) << k.max_error << " " << k.tolerance << " " << k.gflops << "\n";
  return result.str();
}

}  // namespace

void prebuild_kernel(const LibraryEntry& entry, const Args& args, const LibraryOptions& options, const fs::path& dir) {
  // Tuning times kernels: under mpirun the ranks would time them side by side, each on a shared machine, so
  // rank 0's build tunes them one after another instead.
  if (options.tune > 0) return;
  const Synthesis s = synthesize(entry.spec_text, args);
  LibraryKernel k{entry, {}, 0, "", 0, 0, 0, false};
  k.code = kernel_code(s.impl, s.target(), entry.symbol, options.backend);
  k.source_hash = source_hash(k, s.target());
  if (!find_built(k, {cache_dir(fs::absolute(options.out)), dir}).empty()) return;
  const codegen::RemoveAtExit work(codegen::make_temp_dir());
  BuildProgress progress(1);
  const fs::path object = build_object(k, s.target(), work.path());
  if (!verify_kernel(object, k, work.path(), options.time_budget, progress).empty()) return;
  // Each file copied under a name of this process's, then renamed into place (another rank may write the same
  // one); the result first, so that a reader that sees the object sees its measurements too.
  const fs::path result = work.path() / (k.source_hash + ".result");
  write_text(result, result_text(k));
  for (const fs::path& file : {result, object}) {
    const fs::path to = dir / (k.source_hash + file.extension().string());
    const fs::path staged = to.string() + "." + std::to_string(getpid());
    fs::copy_file(file, staged, fs::copy_options::overwrite_existing);
    fs::rename(staged, to);
  }
}

LibraryReport build_library(const std::vector<LibraryEntry>& entries, const Args& args,
                            const LibraryOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path out = fs::absolute(options.out);
  if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / "manifest.json")) {
    user_error("the output directory ", out.string(), " exists and is not a kriek library; choose another -o");
  }
  const fs::path staging = out.parent_path() / ("." + out.filename().string() + ".kriek-" + std::to_string(getpid()));
  fs::remove_all(staging);
  fs::create_directories(cache_dir(staging));
  const codegen::RemoveAtExit cleanup(staging);  // gone once installed (renamed), or on any error
  const fs::path work = staging / "build";
  fs::create_directories(work);

  LibraryReport report;
  std::string table;
  std::unique_ptr<Target> target;
  std::unique_ptr<CostModel> model;
  BuildProgress progress(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LibraryEntry& e = entries[i];
    progress.kernel(i, e.symbol);
    progress.print("[" + std::to_string(i + 1) + "/" + std::to_string(entries.size()) + "] " + e.symbol + ": " +
                   e.spec_text + "\n");
    LibraryKernel k{e, {}, 0, "", 0, 0, 0, false};
    std::string why;
    try {
      Synthesis s = synthesize(e.spec_text, args);
      s.save_table();
      std::optional<TuneOutcome> tuned_now;
      if (options.tune > 0 && !s.tuned) {
        progress.stage(BuildProgress::Stage::tune);
        std::ostringstream log;
        tuned_now = tune(s, options.tune, log);
        if (!tuned_now) {
          // The log's last line says which candidate failed and by how much; the lines before are its table.
          std::string why = log.str();
          while (!why.empty() && why.back() == '\n') why.pop_back();
          throw UserError("a candidate of its tuning does not verify: " + why.substr(why.rfind('\n') + 1));
        }
      }
      if (!target) {
        target = std::make_unique<Target>(s.target());
        model = std::make_unique<CostModel>(s.synth->model());
        if (s.table_path) table = s.table_path->string();
      }
      k.predicted_cost = evaluate(s.impl, s.target(), s.synth->model()).cost;
      progress.stage(BuildProgress::Stage::code);
      k.code = kernel_code(s.impl, s.target(), e.symbol, options.backend);
      k.source_hash = source_hash(k, s.target());
      const fs::path object = cache_dir(staging) / (k.source_hash + ".o");
      const fs::path found = find_built(k, {cache_dir(out), options.prebuilt});
      if (!found.empty()) {
        fs::copy_file(found / (k.source_hash + ".o"), object, fs::copy_options::overwrite_existing);
        fs::copy_file(found / (k.source_hash + ".result"), cache_dir(staging) / (k.source_hash + ".result"),
                      fs::copy_options::overwrite_existing);
        k.reused = found == cache_dir(out);
        if (!k.reused) ++report.compiled;  // by the rank that synthesized it
      } else {
        progress.stage(BuildProgress::Stage::object);
        fs::rename(build_object(k, s.target(), work), object);
        ++report.compiled;
        why = verify_kernel(object, k, work, options.time_budget, progress);
        if (why.empty()) write_text(cache_dir(staging) / (k.source_hash + ".result"), result_text(k));
      }
      std::ostringstream report_line;
      report_line << "    " << s.stats_line() << "\n    ";
      if (tuned_now) {
        report_line << "tuned: candidate " << tuned_now->fastest << " of " << tuned_now->candidates << ", "
                    << std::setprecision(3) << tuned_now->seconds * 1e6 << " us per call against "
                    << tuned_now->pick_seconds * 1e6 << " us for the DP's pick (recorded beside the table)\n    ";
      } else if (s.tuned) {
        report_line << s.tuned_line() << "\n    ";
      }
      if (why.empty()) {
        report_line << (k.reused         ? "unchanged: object and measurements reused, "
                        : !found.empty() ? "compiled, verified by another rank, "
                                         : "compiled, verified, ")
                    << std::fixed << std::setprecision(1) << k.gflops << " GFLOP/s";
      } else {
        report_line << why;
      }
      progress.print(report_line.str() + "\n");
    } catch (const UserError& err) {
      why = err.what();
    }
    if (!why.empty()) {
      if (!options.keep_going) user_error(options.list_file, ":", e.line, ": ", e.symbol, ": ", why);
      report.failed.emplace_back(e, why);
      continue;
    }
    report.kernels.push_back(std::move(k));
  }
  if (report.kernels.empty()) user_error("no kernel of ", options.list_file, " could be built");

  std::vector<fs::path> objects;
  std::vector<const LibraryKernel*> built;
  for (const LibraryKernel& k : report.kernels) {
    objects.push_back(cache_dir(staging) / (k.source_hash + ".o"));
    built.push_back(&k);
    write_text(staging / "src" / source_file(k), k.code.text);
  }
  const LibraryLinks links = links_of(built);
  const std::string version = KRIEK_VERSION;
  fs::create_directories(staging / "lib");
  link_library(objects, built, work, staging / "lib" / ("lib" + options.name + ".so"));
  codegen::archive_static_library(with_runtime(objects, links, work), staging / "lib" / ("lib" + options.name + ".a"));
  write_text(staging / "include" / (options.name + ".h"), library_header(options, report.kernels, *target));
  const fs::path cmake = staging / "lib" / "cmake" / options.name;
  write_text(cmake / (options.name + "Config.cmake"), library_cmake_config(options.name, links));
  write_text(cmake / (options.name + "ConfigVersion.cmake"), library_cmake_version(version));
  write_text(staging / "lib" / "pkgconfig" / (options.name + ".pc"), library_pkg_config(options.name, version, links));
  write_text(staging / "manifest.json", library_manifest(options, report.kernels, *target, *model, table));
  fs::remove_all(work);
  install(staging, out);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kriek::tools
