// Building a kernel library (see library.h): synthesis through the shared DP table, the object cache of the
// previous build, per-kernel verification in a library of its own, and the atomic swap of the output directory.
#include "tools/library.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "spec/stable_hash.h"
#include "codegen/compile.h"
#include "codegen/measure.h"
#include "spec/error.h"
#include "tools/synthesis.h"

namespace kriek::tools {
namespace fs = std::filesystem;
namespace {

/// The object cache inside a library directory: <hash>.o and <hash>.result ("max_error tolerance gflops").
fs::path cache_dir(const fs::path& library) { return library / ".kriek" / "objects"; }

/// The object cache's key: the C source and the command that compiles it (compiler, ISA and other flags).
std::string source_hash(const codegen::CSource& c, const Target& target) {
  std::string key = c.code;
  for (const auto& arg : codegen::compile_command(c, target, "kernel.c", "kernel.o")) key += "\n" + arg;
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << stable_hash(key);
  return out.str();
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

/// Copies a failing kernel's source out of the staging directory (which goes away) and returns where it is.
std::string keep_source(const fs::path& work, const std::string& symbol) {
  const fs::path kept = codegen::make_temp_dir() / (symbol + ".c");
  std::error_code ec;
  fs::copy_file(work / (symbol + ".c"), kept, ec);
  return kept.string();
}

/// Compiles the kernel's object; a compiler failure names where its source is kept.
fs::path compile_kept(const LibraryKernel& k, const Target& target, const fs::path& work) {
  try {
    return codegen::compile_object(k.source, target, work);
  } catch (const codegen::CompileError& e) {
    std::string message = e.what();
    message = message.substr(0, message.rfind("\nthe source is kept at"));
    throw codegen::CompileError(message + "\nthe source is kept at " + keep_source(work, k.entry.symbol));
  }
}

/// Verifies and times the kernel in a shared library of its own; returns an error text, empty when it verified.
std::string verify_kernel(const fs::path& object, LibraryKernel& k, const fs::path& work, double budget) {
  const fs::path so = work / (k.entry.symbol + ".so");
  codegen::link_shared_library({object}, k.source.uses_openmp, so);
  const codegen::LoadedKernel kernel = codegen::LoadedKernel::load(so, k.entry.symbol);
  const Verification v = codegen::verify(kernel, k.entry.spec, 1);
  k.max_error = v.max_error;
  k.tolerance = v.tolerance;
  if (!v.ok()) {
    std::ostringstream why;
    why << "the kernel disagrees with the reference: max error " << v.max_error << " at output element " << v.worst
        << " (tolerance " << v.tolerance << "); its source is kept at " << keep_source(work, k.entry.symbol);
    return why.str();
  }
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

}  // namespace

LibraryReport build_library(const std::vector<LibraryEntry>& entries, const Args& args, const LibraryOptions& options,
                            std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path out = fs::absolute(options.out);
  if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / "manifest.json")) {
    user_error("the output directory ", out.string(), " exists and is not a kriek library; choose another -o");
  }
  const fs::path staging = out.parent_path() / ("." + out.filename().string() + ".kriek-" + std::to_string(getpid()));
  fs::remove_all(staging);
  fs::create_directories(cache_dir(staging));
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{staging};
  const fs::path work = staging / "build";
  fs::create_directories(work);

  LibraryReport report;
  std::string table;
  std::unique_ptr<Target> target;
  std::unique_ptr<CostModel> model;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LibraryEntry& e = entries[i];
    progress << "[" << i + 1 << "/" << entries.size() << "] " << e.symbol << ": " << e.spec_text << "\n"
             << std::flush;
    LibraryKernel k{e, {}, 0, "", 0, 0, 0, false};
    std::string why;
    try {
      Synthesis s = synthesize(e.spec_text, args);
      s.save_table();
      if (!target) {
        target = std::make_unique<Target>(s.target());
        model = std::make_unique<CostModel>(s.synth->model());
        if (s.table_path) table = s.table_path->string();
      }
      k.predicted_cost = evaluate(s.impl, s.target(), s.synth->model()).cost;
      k.source = codegen::emit_c(s.impl, s.target(), e.symbol);
      k.source_hash = source_hash(k.source, s.target());
      const fs::path cached = cache_dir(out) / (k.source_hash + ".o");
      const fs::path object = cache_dir(staging) / (k.source_hash + ".o");
      if (fs::exists(cached) && read_result(cache_dir(out) / (k.source_hash + ".result"), k)) {
        fs::copy_file(cached, object, fs::copy_options::overwrite_existing);
        fs::copy_file(cache_dir(out) / (k.source_hash + ".result"), cache_dir(staging) / (k.source_hash + ".result"),
                      fs::copy_options::overwrite_existing);
        k.reused = true;
      } else {
        fs::rename(compile_kept(k, s.target(), work), object);
        ++report.compiled;
        why = verify_kernel(object, k, work, options.time_budget);
        if (why.empty()) {
          std::ostringstream result;
          result << std::setprecision(9) << k.max_error << " " << k.tolerance << " " << k.gflops << "\n";
          write_text(cache_dir(staging) / (k.source_hash + ".result"), result.str());
        }
      }
      progress << "    " << s.stats_line() << "\n    ";
      if (why.empty()) {
        progress << (k.reused ? "unchanged: object and measurements reused, " : "compiled, verified, ") << std::fixed
                 << std::setprecision(1) << k.gflops << " GFLOP/s" << std::defaultfloat;
      } else {
        progress << why;
      }
      progress << "\n" << std::flush;
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
  bool openmp = false;
  for (const LibraryKernel& k : report.kernels) {
    objects.push_back(cache_dir(staging) / (k.source_hash + ".o"));
    openmp |= k.source.uses_openmp;
    write_text(staging / "src" / (k.entry.symbol + ".c"), k.source.code);
  }
  const std::string version = KRIEK_VERSION;
  fs::create_directories(staging / "lib");
  codegen::link_shared_library(objects, openmp, staging / "lib" / ("lib" + options.name + ".so"));
  codegen::archive_static_library(objects, staging / "lib" / ("lib" + options.name + ".a"));
  write_text(staging / "include" / (options.name + ".h"), library_header(options, report.kernels, *target));
  const fs::path cmake = staging / "lib" / "cmake" / options.name;
  write_text(cmake / (options.name + "Config.cmake"), library_cmake_config(options.name, openmp));
  write_text(cmake / (options.name + "ConfigVersion.cmake"), library_cmake_version(version));
  write_text(staging / "lib" / "pkgconfig" / (options.name + ".pc"), library_pkg_config(options.name, version, openmp));
  write_text(staging / "manifest.json", library_manifest(options, report.kernels, *target, *model, table));
  fs::remove_all(work);
  install(staging, out);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kriek::tools
