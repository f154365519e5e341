// Runs the C compiler with posix_spawn (no shell), its diagnostics captured to a file next to the source, and
// loads the result with dlopen. Nothing is swallowed: a failure reports the command, the compiler's output and
// where the source was kept.
#include "codegen/compile.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "codegen/vector_isa.h"

extern char** environ;

namespace kriek::codegen {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

/// Runs argv with stdout and stderr into `log`; returns the exit status (or -1 when it could not start).
int run(const std::vector<std::string>& argv, const std::filesystem::path& log, std::string& error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = std::string("cannot run '") + argv[0] + "': " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      error = std::string("waitpid: ") + std::strerror(errno);
      return -1;
    }
  }
  if (WIFSIGNALED(status)) {
    error = argv[0] + std::string(" was killed by signal ") + std::to_string(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

std::string c_compiler(const CompileOptions& options) {
  if (!options.compiler.empty()) return options.compiler;
  const char* cc = std::getenv("CC");
  return cc && *cc ? cc : "cc";
}

/// Runs a build step; CompileError with the command and its output when it fails.
void run_step(const std::vector<std::string>& argv, const std::filesystem::path& log, const std::string& what) {
  std::string error;
  const int status = run(argv, log, error);
  if (status == 0) return;
  std::string message = error.empty() ? read_file(log) : error;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  throw CompileError(what + " failed (exit " + std::to_string(status) + "): " + joined(argv) + "\n" + message);
}

}  // namespace

std::vector<std::string> compile_command(const CSource& c, const Target& target, const std::filesystem::path& source,
                                         const std::filesystem::path& library, const CompileOptions& options) {
  // -fno-signed-zeros: a sum's sign of zero is no Spec's semantics, and 0 + x folds to x (accumulators that are
  // zeroed and then added start from their first term; the LLVM backend's nsz).
  std::vector<std::string> argv{c_compiler(options), "-std=c11", "-O3", "-fno-signed-zeros", "-fPIC", "-shared",
                                "-Wall", "-Wextra"};
  if (options.warnings_as_errors) argv.push_back("-Werror");
  for (const auto& f : isa_flags(target)) argv.push_back(f);
  if (c.uses_openmp) argv.push_back("-fopenmp");
  for (const auto& f : options.extra_flags) argv.push_back(f);
  argv.insert(argv.end(), {"-o", library.string(), source.string()});
  return argv;
}

LoadedKernel::LoadedKernel(LoadedKernel&& other) noexcept { *this = std::move(other); }

LoadedKernel& LoadedKernel::operator=(LoadedKernel&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    library_ = std::move(other.library_);
    owner_ = std::move(other.owner_);
    threads_ = std::move(other.threads_);
  }
  return *this;
}

LoadedKernel::~LoadedKernel() {
  if (handle_) dlclose(handle_);
}

LoadedKernel LoadedKernel::load(const std::filesystem::path& library, const std::string& function) {
  LoadedKernel k;
  k.library_ = library;
  // Never unmapped: an OpenMP runtime the library pulled in keeps worker threads that would run unmapped code.
  k.handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!k.handle_) throw CompileError("cannot load " + library.string() + ": " + dlerror());
  dlerror();
  k.entry_ = dlsym(k.handle_, function.c_str());
  if (!k.entry_) {
    const char* e = dlerror();
    throw CompileError("no function " + function + " in " + library.string() + (e ? std::string(": ") + e : ""));
  }
  return k;
}

void LoadedKernel::call(const std::vector<float*>& p) const {
  KRIEK_ASSERT(entry_ != nullptr, "call of an unloaded kernel");
  using F1 = void (*)(float*);
  using F2 = void (*)(float*, float*);
  using F3 = void (*)(float*, float*, float*);
  using F4 = void (*)(float*, float*, float*, float*);
  using F5 = void (*)(float*, float*, float*, float*, float*);
  using F6 = void (*)(float*, float*, float*, float*, float*, float*);
  using F7 = void (*)(float*, float*, float*, float*, float*, float*, float*);
  using F8 = void (*)(float*, float*, float*, float*, float*, float*, float*, float*);
  switch (p.size()) {
    case 1: return reinterpret_cast<F1>(entry_)(p[0]);
    case 2: return reinterpret_cast<F2>(entry_)(p[0], p[1]);
    case 3: return reinterpret_cast<F3>(entry_)(p[0], p[1], p[2]);
    case 4: return reinterpret_cast<F4>(entry_)(p[0], p[1], p[2], p[3]);
    case 5: return reinterpret_cast<F5>(entry_)(p[0], p[1], p[2], p[3], p[4]);
    case 6: return reinterpret_cast<F6>(entry_)(p[0], p[1], p[2], p[3], p[4], p[5]);
    case 7: return reinterpret_cast<F7>(entry_)(p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
    case 8: return reinterpret_cast<F8>(entry_)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
    default: break;
  }
  throw UserError("kernels of " + std::to_string(p.size()) + " operands cannot be called (at most 8)");
}

LoadedKernel LoadedKernel::jitted(void* entry, std::shared_ptr<void> owner, std::optional<Threads> threads) {
  LoadedKernel k;
  k.entry_ = entry;
  k.owner_ = std::move(owner);
  k.threads_ = std::move(threads);
  return k;
}

bool LoadedKernel::set_threads(int threads) const {
  if (owner_) {
    if (threads_) threads_->set(threads);
    return threads_.has_value();
  }
  void* f = handle_ ? dlsym(handle_, "omp_set_num_threads") : nullptr;
  if (!f) return false;
  reinterpret_cast<void (*)(int)>(f)(threads);
  return true;
}

std::filesystem::path compile_library(const std::vector<CSource>& sources, const Target& target,
                                      const std::filesystem::path& dir, const std::string& name,
                                      const CompileOptions& options) {
  const std::filesystem::path source = dir / (name + ".c");
  const std::filesystem::path library = dir / (name + ".so");
  const std::filesystem::path log = dir / (name + ".log");
  CSource all{"", name, 0, false, {}};
  for (const CSource& c : sources) {
    all.code += c.code + "\n";
    all.uses_openmp |= c.uses_openmp;
  }
  {
    std::ofstream out(source);
    out << all.code;
    if (!out.flush()) throw CompileError("cannot write the C source to " + source.string());
  }
  const auto argv = compile_command(all, target, source, library, options);
  std::string error;
  const int status = run(argv, log, error);
  if (status != 0) {
    std::string message = error.empty() ? read_file(log) : error;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw CompileError("compiling " + name + " failed (exit " + std::to_string(status) + "): " + joined(argv) + "\n" +
                       message + "\nthe source is kept at " + source.string());
  }
  return library;
}

int LoadedKernel::max_threads() const {
  if (owner_) return threads_ ? threads_->max() : 1;
  void* f = handle_ ? dlsym(handle_, "omp_get_max_threads") : nullptr;
  return f ? reinterpret_cast<int (*)()>(f)() : 1;
}

LoadedKernel compile_and_load(const CSource& c, const Target& target, const std::filesystem::path& dir,
                              const CompileOptions& options) {
  const std::filesystem::path library = compile_library({c}, target, dir, c.function, options);
  const std::filesystem::path source = dir / (c.function + ".c");
  try {
    return LoadedKernel::load(library, c.function);
  } catch (const CompileError& e) {
    throw CompileError(std::string(e.what()) + "\nthe source is kept at " + source.string());
  }
}

std::filesystem::path compile_object(const CSource& c, const Target& target, const std::filesystem::path& dir,
                                     const CompileOptions& options) {
  const std::filesystem::path source = dir / (c.function + ".c");
  const std::filesystem::path object = dir / (c.function + ".o");
  {
    std::ofstream out(source);
    out << c.code;
    if (!out.flush()) throw CompileError("cannot write the C source to " + source.string());
  }
  std::vector<std::string> argv = compile_command(c, target, source, object, options);
  std::erase(argv, std::string("-shared"));
  argv.insert(argv.end() - 3, "-c");
  try {
    run_step(argv, dir / (c.function + ".log"), "compiling " + c.function);
  } catch (const CompileError& e) {
    throw CompileError(std::string(e.what()) + "\nthe source is kept at " + source.string());
  }
  return object;
}

void link_shared_library(const std::vector<std::filesystem::path>& objects, bool openmp,
                         const std::filesystem::path& library, const std::vector<std::string>& libraries,
                         const CompileOptions& options) {
  std::vector<std::string> argv{c_compiler(options), "-shared", "-o", library.string()};
  for (const auto& o : objects) argv.push_back(o.string());
  if (openmp) argv.push_back("-fopenmp");
  argv.insert(argv.end(), libraries.begin(), libraries.end());
  argv.push_back("-lm");
  run_step(argv, library.string() + ".log", "linking " + library.filename().string());
  std::filesystem::remove(library.string() + ".log");
}

void archive_static_library(const std::vector<std::filesystem::path>& objects, const std::filesystem::path& library) {
  const char* ar = std::getenv("AR");
  std::vector<std::string> argv{ar && *ar ? ar : "ar", "rcs", library.string()};
  for (const auto& o : objects) argv.push_back(o.string());
  std::filesystem::remove(library);
  run_step(argv, library.string() + ".log", "archiving " + library.filename().string());
  std::filesystem::remove(library.string() + ".log");
}

bool host_runs(const Target& target) {
  auto rank = [](Isa isa) {
    switch (isa) {
      case Isa::scalar: return 0;
      case Isa::avx2: return 1;
      case Isa::avx512: return 2;
    }
    return 3;
  };
  return rank(target.isa) <= rank(host_target().isa);
}

void require_host_runs(const Target& target, std::string_view instead) {
  if (!host_runs(target)) {
    user_error("this machine cannot run ", isa_name(target.isa), " code (the host is ", isa_name(host_target().isa),
               "); ", instead);
  }
}

std::filesystem::path make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/kriek-XXXXXX";
  if (!mkdtemp(pattern.data())) throw UserError("cannot make a directory " + pattern + ": " + std::strerror(errno));
  return pattern;
}

}  // namespace kriek::codegen
