// Compiling emitted C into a shared library with the system C compiler and loading it (dlopen). Failures throw
// CompileError carrying the compiler's or loader's message and the path of the kept source.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/emit_c.h"
#include "spec/error.h"
#include "spec/target.h"

namespace kriek::codegen {

/// A compiler or loader failure; what() is the whole report (command, message, kept source path).
class CompileError : public UserError {
 public:
  using UserError::UserError;
};

struct CompileOptions {
  /// The C compiler: $CC when set, else "cc".
  std::string compiler;
  /// Turn warnings into errors (tests use it: emitted code must compile cleanly under -Wall -Wextra).
  bool warnings_as_errors = false;
  std::vector<std::string> extra_flags;
};

/// The command line that compiles `source` into the shared library `library`.
std::vector<std::string> compile_command(const CSource& c, const Target& target, const std::filesystem::path& source,
                                         const std::filesystem::path& library, const CompileOptions& options = {});

/// A loaded shared library and its entry point, or a JIT-compiled entry point (emit_llvm.h). Move-only. Libraries
/// stay mapped for the life of the process (RTLD_NODELETE): the OpenMP runtime a kernel brings in keeps threads
/// parked in its code.
class LoadedKernel {
 public:
  LoadedKernel() = default;
  LoadedKernel(LoadedKernel&& other) noexcept;
  LoadedKernel& operator=(LoadedKernel&& other) noexcept;
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  ~LoadedKernel();

  /// Loads `library` and finds `function` in it; CompileError with dlerror()'s message when either fails.
  static LoadedKernel load(const std::filesystem::path& library, const std::string& function);

  /// How a JIT-compiled kernel's parallel loops are sized (its runtime's, not OpenMP's).
  struct Threads {
    std::function<void(int)> set;
    std::function<int()> max;
  };
  /// A kernel whose code `owner` keeps alive (released with the last copy of it); `threads` is empty when it has
  /// no parallel loops.
  static LoadedKernel jitted(void* entry, std::shared_ptr<void> owner, std::optional<Threads> threads);

  void* entry() const { return entry_; }
  const std::filesystem::path& library() const { return library_; }
  /// Calls the entry point with one pointer per operand (inputs, then the output), at most 8.
  void call(const std::vector<float*>& operands) const;
  /// Sets the team size of the kernel's parallel loops; false when it has none (a library without OpenMP runtime).
  bool set_threads(int threads) const;
  /// The team size the kernel's parallel loops will use (1 when it has none).
  int max_threads() const;

 private:
  void* handle_ = nullptr;
  void* entry_ = nullptr;
  std::filesystem::path library_;
  std::shared_ptr<void> owner_;
  std::optional<Threads> threads_;
};

/// Writes `c` to `dir`/<function>.c, compiles it to `dir`/<function>.so and loads it. The source stays in `dir`.
LoadedKernel compile_and_load(const CSource& c, const Target& target, const std::filesystem::path& dir,
                              const CompileOptions& options = {});

/// Compiles several sources into one library `dir`/`name`.so (their entry points must differ; each source keeps
/// its helpers static) and returns its path; load each entry point with LoadedKernel::load.
std::filesystem::path compile_library(const std::vector<CSource>& sources, const Target& target,
                                      const std::filesystem::path& dir, const std::string& name,
                                      const CompileOptions& options = {});

// --- Libraries of many kernels, built object by object (kriek library recompiles only what changed).

/// Compiles `c` (written to `dir`/<function>.c) into the position-independent object `dir`/<function>.o.
std::filesystem::path compile_object(const CSource& c, const Target& target, const std::filesystem::path& dir,
                                     const CompileOptions& options = {});
/// Links `objects` into the shared library `library` (with the OpenMP runtime when `openmp`, and `libraries`, such
/// as "-lpthread").
void link_shared_library(const std::vector<std::filesystem::path>& objects, bool openmp,
                         const std::filesystem::path& library, const std::vector<std::string>& libraries = {},
                         const CompileOptions& options = {});
/// Archives `objects` into the static library `library` (`ar`, or $AR).
void archive_static_library(const std::vector<std::filesystem::path>& objects, const std::filesystem::path& library);

/// True when this machine can execute code compiled for `target` (its ISA is no wider than the host's).
bool host_runs(const Target& target);
/// UserError unless host_runs(target): "this machine cannot run <isa> code (the host is <isa>); <instead>", where
/// `instead` says what the command cannot do, or what to do instead.
void require_host_runs(const Target& target, std::string_view instead);

/// A fresh private directory under $TMPDIR (or /tmp) named kriek-XXXXXX.
std::filesystem::path make_temp_dir();

/// Removes a directory and everything in it when it goes out of scope, whatever the way out (errors ignored):
/// the work and staging directories of builds. Movable, so a vector can hold several.
class RemoveAtExit {
 public:
  explicit RemoveAtExit(std::filesystem::path dir) : dir_(std::move(dir)) {}
  RemoveAtExit(RemoveAtExit&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}
  RemoveAtExit& operator=(RemoveAtExit&&) = delete;
  RemoveAtExit(const RemoveAtExit&) = delete;
  RemoveAtExit& operator=(const RemoveAtExit&) = delete;
  ~RemoveAtExit() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace kriek::codegen
