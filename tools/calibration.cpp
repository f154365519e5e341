// Running the calibration probes and the profile's place on disk (see calibration.h).
#include "tools/calibration.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ctime>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "cache/table_files.h"
#include "codegen/compile.h"
#include "codegen/kernel_runtime.h"
#include "spec/error.h"
#include "spec/user_file.h"

namespace kriek::tools {
namespace {

using Clock = std::chrono::steady_clock;

/// A buffer aligned to a page, zeroed (so its pages are touched before timing).
struct Buffer {
  explicit Buffer(std::size_t bytes) : bytes(bytes), data(static_cast<char*>(std::aligned_alloc(4096, round(bytes)))) {
    KRIEK_ASSERT(data != nullptr, "cannot allocate ", bytes, " bytes for calibration");
    std::fill(data, data + round(bytes), 0);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  static std::size_t round(std::size_t b) { return (b + 4095) / 4096 * 4096; }
  std::size_t bytes;
  char* data;
};

/// A buffer whose 64-byte lines hold pointers forming one random cycle through all of them.
void link_random_cycle(Buffer& b) {
  const std::size_t lines = b.bytes / 64;
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(1));
  for (std::size_t i = 0; i < lines; ++i) {
    *reinterpret_cast<void**>(b.data + order[i] * 64) = b.data + order[(i + 1) % lines] * 64;
  }
}

/// The median of `samples` (reordered).
double median_of(std::vector<double>& samples) {
  const auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  return *mid;
}

/// What a parallel loop costs beyond its share of the work, on kriek's own runtime (kriek_parallel_for, what LLVM
/// kernels call), as a kernel called over and over meets it: the median time of a loop of one iteration per
/// thread, each spinning for about a microsecond, less the median time of one such iteration run alone (not the
/// serial loop's time over the threads: the out-of-order core overlaps consecutive iterations, two ran in 1.6 us
/// where one ran in 1.0, and that share made the difference 0 for the team below). It counts the team's start and
/// join and, where workers sleep between loops, the time one takes to wake up, which an empty loop does not show
/// (on TBB, kriek's runtime until 2026-11-26: 1230 cycles empty, about 7000 with the work, as kernels showed it:
/// matmul 64^3 on 2 threads 2.97 us, serial 2.80). Earlier: an OpenMP region's fastest start, 2040 cycles.
double parallel_loop_seconds(int loops) {
  const std::int64_t trips = std::max(2, kriek_runtime_threads());
  constexpr long kSpins = 4000;  // about 1.5 us of dependent adds at 3-4 GHz
  auto body = [](void*, std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) {
      long x = 0;
      for (long k = 0; k < kSpins; ++k) __asm__ volatile("add $1, %0" : "+r"(x));
    }
  };
  auto median = [&](auto&& run) {
    std::vector<double> seconds(static_cast<std::size_t>(loops));
    for (double& s : seconds) {
      const auto start = std::chrono::steady_clock::now();
      run();
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return median_of(seconds);
  };
  for (int i = 0; i < 100; ++i) kriek_parallel_for(body, nullptr, trips);  // the team started
  const double one = median([&] { body(nullptr, 0, 1); });
  const double parallel = median([&] { kriek_parallel_for(body, nullptr, trips); });
  // At least a nanosecond: a profile's measurements are positive, and no loop starts for free.
  return std::max(1e-9, parallel - one);
}

/// One core's reads of lines another core has just written (TensorSpec::shared: a padded image, a packing copy or
/// an intermediate a thread team made), beyond its reads of lines it wrote itself, per line in seconds: two threads
/// on the first two CPUs this process may run on take turns; each round one writes every line of a buffer that fits
/// L2 (each line the address of the next in a random cycle), then the other reads them and times it: `chase`
/// follows the cycle, each load waiting for the last (the snoop's latency), else it reads the lines in order, the
/// loads independent (as many in flight as the core allows). The median of `rounds` rounds against the median of
/// the reader's rounds over lines it wrote itself. Returns 0 where the process has one CPU.
double cross_core_line_seconds(int rounds, bool chase) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return 0;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  constexpr std::size_t kLines = 2048;  // 128 KiB: in L2, out of L1
  Buffer buffer(kLines * 64);
  char* const data = buffer.data;
  std::atomic<int> turn{0};  // 2r + 1: the writer wrote round r; 2r + 2: the reader read it
  const auto pin = [](std::thread& t, int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(t.native_handle(), sizeof one, &one);
  };
  const auto write_all = [&] { link_random_cycle(buffer); };  // untimed: every line the writer's
  const auto read_all = [data, chase] {
    const auto start = Clock::now();
    char* at = data;
    std::uintptr_t sum = 0;
    if (chase) {
      for (std::size_t l = 0; l < kLines; ++l) at = *reinterpret_cast<char* volatile*>(at);
    } else {
      for (std::size_t l = 0; l < kLines; ++l) sum += *reinterpret_cast<volatile std::uintptr_t*>(data + l * 64);
    }
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    __asm__ volatile("" : : "r"(at), "r"(sum));
    return s;
  };
  std::vector<double> remote(static_cast<std::size_t>(rounds)), local(static_cast<std::size_t>(rounds));
  // One spare round at the start, whose reads warm the pages and the loop.
  std::thread writer([&] {
    for (int r = 0; r <= rounds; ++r) {
      while (turn.load(std::memory_order_acquire) != 2 * r) {
      }
      write_all();
      turn.store(2 * r + 1, std::memory_order_release);
    }
  });
  std::thread reader([&] {
    for (int r = 0; r <= rounds; ++r) {
      while (turn.load(std::memory_order_acquire) != 2 * r + 1) {
      }
      const double s = read_all();
      if (r > 0) remote[static_cast<std::size_t>(r - 1)] = s;
      turn.store(2 * r + 2, std::memory_order_release);
    }
    for (int r = 0; r <= rounds; ++r) {
      write_all();
      const double s = read_all();
      if (r > 0) local[static_cast<std::size_t>(r - 1)] = s;
    }
  });
  pin(writer, cpus[0]);
  pin(reader, cpus[1]);
  writer.join();
  reader.join();
  return std::max(0.0, median_of(remote) - median_of(local)) / static_cast<double>(kLines);
}

class Prober {
 public:
  Prober(const Target& target, const CalibrationOptions& options)
      : options_(options), dir_(codegen::make_temp_dir()), scratch_(1 << 20) {
    codegen::CompileOptions compile;
    // Scalar probes must stay scalar: no vectorizer may merge their independent chains.
    compile.extra_flags = {"-fno-tree-vectorize", "-fno-tree-slp-vectorize", "-O2"};
    library_ = codegen::compile_library({calibration_source(target.isa)}, target, dir_, "kriek_calibration", compile);
  }
  ~Prober() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  /// Runs probe `name` once with `args` and returns the double it leaves in the scratch buffer.
  double result_of(const std::string& name, std::vector<long> args) {
    kernel(name).call({reinterpret_cast<float*>(args.data()), reinterpret_cast<float*>(scratch_.data),
                       reinterpret_cast<float*>(scratch_.data)});
    double r = 0;
    std::memcpy(&r, scratch_.data, sizeof r);
    return r;
  }

  /// Seconds per repetition of probe `name` on `buffer` with `args` (args[0], the repetitions, is chosen here):
  /// repetitions grow until one run lasts long enough to time, then the fastest of several runs (others sharing
  /// the machine only ever slow a run down). Timed in this thread's CPU time, which a preemption does not count
  /// (on a loaded machine wall time counts other processes' turns).
  double seconds_per_rep(const std::string& name, std::vector<long> args, char* buffer) {
    const codegen::LoadedKernel& k = kernel(name);
    const double target_seconds = options_.quick ? 0.001 : 0.004;
    const int runs = options_.quick ? 3 : 9;
    args.insert(args.begin(), 1);
    auto run = [&] {
      const double start = now();
      k.call({reinterpret_cast<float*>(args.data()), reinterpret_cast<float*>(buffer),
              reinterpret_cast<float*>(scratch_.data)});
      return now() - start;
    };
    run();  // warm-up: page faults
    double s = run();
    while (s < target_seconds && args[0] < (1L << 40)) {
      args[0] *= std::max<long>(2, std::min<long>(64, static_cast<long>(target_seconds / std::max(s, 1e-9))));
      s = run();
    }
    for (int r = 1; r < runs; ++r) s = std::min(s, run());
    return s / static_cast<double>(args[0]);
  }

 private:
  const codegen::LoadedKernel& kernel(const std::string& name) {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) it = kernels_.emplace(name, codegen::LoadedKernel::load(library_, name)).first;
    return it->second;
  }
  static double now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }

  const CalibrationOptions& options_;
  std::filesystem::path dir_;
  Buffer scratch_;
  std::filesystem::path library_;
  std::map<std::string, codegen::LoadedKernel> kernels_;
};

/// Three significant digits: what the measurements are good for, and what a person reads.
double rounded(double v) {
  if (!(v > 0)) return v;
  const double scale = std::pow(10.0, 2 - std::floor(std::log10(v)));
  return std::round(v * scale) / scale;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

TargetProfile calibrate(const Target& target, const CalibrationOptions& options) {
  KRIEK_ASSERT(!target.profile, "calibrate measures a target without a profile");
  const auto start = Clock::now();
  Prober probe(target, options);
  TargetProfile p;
  p.target = target.name;
  p.isa = target.isa;
  p.target_fingerprint = target.fingerprint();
  auto record = [&](const std::string& key, double v) {
    p.values.emplace_back(key, rounded(v));
    if (options.progress) options.progress(key, rounded(v));
  };
  Buffer small(64 * 1024);
  // 16 dependent adds per repetition.
  const double ghz = 16 / probe.seconds_per_rep("kc_clock", {}, small.data) * 1e-9;
  record("clock-ghz", ghz);
  const auto cycles = [&](double seconds) { return seconds * ghz * 1e9; };
  for (int bits : profile_widths(target.isa)) {
    const std::string w = std::to_string(bits);
    record("fma-per-cycle." + w + "b", 12 / cycles(probe.seconds_per_rep("kc_fma_throughput_" + w, {}, small.data)));
    record("fma-latency." + w + "b", cycles(probe.seconds_per_rep("kc_fma_latency_" + w, {}, small.data)) / 8);
  }
  for (const char* port : {"loads", "stores", "broadcasts"}) {
    record(std::string(port) + "-per-cycle", 16 / cycles(probe.seconds_per_rep(std::string("kc_") + port, {}, small.data)));
  }
  if (target.isa == Isa::avx512) {
    record("broadcast-operands-per-cycle", 16 / cycles(probe.seconds_per_rep("kc_broadcast_operands", {}, small.data)));
  }
  record("vector-ops-per-cycle", 12 / cycles(probe.seconds_per_rep("kc_vector_ops", {}, small.data)));

  // A buffer of half of each level (of L3 a quarter, shared as it is), and main memory at four times L3.
  const std::int64_t l3 = target.l3_bytes > 0 ? target.l3_bytes : 32 << 20;
  const std::int64_t dram = options.quick ? 2 * l3 : 4 * l3;
  const std::vector<std::pair<std::string, std::int64_t>> levels = {
      {"L1", target.level(Level::L1).capacity / 2}, {"L2", target.level(Level::L2).capacity / 2},
      {"L3", l3 / 4}, {"DRAM", dram}};
  std::vector<std::unique_ptr<Buffer>> buffers;
  for (const auto& [name, bytes] : levels) {
    buffers.push_back(std::make_unique<Buffer>(static_cast<std::size_t>(bytes)));
    const double s = probe.seconds_per_rep("kc_read", {static_cast<long>(bytes)}, buffers.back()->data);
    record("read-bandwidth." + name, static_cast<double>(bytes) / cycles(s));
  }
  for (std::size_t i = 0; i < levels.size(); ++i) {
    link_random_cycle(*buffers[i]);
    record("latency." + levels[i].first, cycles(probe.seconds_per_rep("kc_chase", {}, buffers[i]->data)) / 8);
  }
  buffers.clear();

  // Packing: 256 rows of 16 floats (64 bytes) from a matrix of 272-float rows in L2, against the same bytes
  // copied as contiguous runs from a buffer of that size.
  constexpr long kRows = 256, kWidth = 16, kStride = 272;
  Buffer matrix(kRows * kStride * sizeof(float));
  const double bytes_copied = kRows * kWidth * sizeof(float);
  const double contiguous =
      probe.seconds_per_rep("kc_copy", {kRows, kWidth, kWidth, kRows * kWidth, kRows * kStride}, matrix.data);
  const double strided = probe.seconds_per_rep("kc_copy", {kRows, kStride, kWidth, kWidth, kStride}, matrix.data);
  record("pack-contiguous", bytes_copied / cycles(contiguous));
  record("pack-strided", bytes_copied / cycles(strided));
  record("parallel-launch", cycles(parallel_loop_seconds(options.quick ? 2000 : 20000)));
  record("cross-core-latency", cycles(cross_core_line_seconds(options.quick ? 50 : 500, true)));
  record("cross-core-stream", cycles(cross_core_line_seconds(options.quick ? 50 : 500, false)));

  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  p.measured = utc_now() + " in " + std::to_string(static_cast<int>(std::ceil(seconds))) + " s" +
               (options.quick ? " (quick: not for use)" : "");
  return p;
}

std::optional<std::filesystem::path> default_profile_path(const Target& target) {
  try {
    return default_cache_dir(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")) / (target.name + ".profile");
  } catch (const UserError&) {
    return std::nullopt;  // neither variable is set: no default profile
  }
}

Target command_target(const Args& args) {
  Target target = named_target(args.get("--target") ? *args.get("--target") : "host");
  if (args.has("--profile") && args.has("--no-profile")) user_error("--profile and --no-profile exclude each other");
  if (args.has("--no-profile")) return target;
  if (const std::string* file = args.get("--profile")) return with_profile(target, read_profile(*file));
  const std::optional<std::filesystem::path> path = default_profile_path(target);
  std::error_code ec;
  if (!path || !std::filesystem::exists(*path, ec)) return target;
  // The default profile is a cache: one of another format version (an older kriek's) or of another machine is
  // noted and ignored, not an error of every command; a damaged one is an error.
  const std::string text = read_user_file(*path, "the target profile");
  const std::optional<std::uint32_t> version = profile_format_version(text);
  if (version && *version != TargetProfile::kFormatVersion) {
    std::cerr << "kriek: note: the profile " << path->string() << " has format version " << *version
              << ", this kriek reads version " << TargetProfile::kFormatVersion
              << "; it is ignored (run kriek calibrate again)\n";
    return target;
  }
  TargetProfile profile = parse_profile(text, path->string());
  try {
    return with_profile(target, std::move(profile));
  } catch (const UserError& e) {
    std::cerr << "kriek: note: " << e.what() << "; it is ignored\n";
    return target;
  }
}

}  // namespace kriek::tools
