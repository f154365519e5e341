// The C source of kriek calibrate's micro-benchmarks (see calibration.h): one function per probe, compiled for the
// host like a kernel. Every probe takes (long *args, char *buffer, char *scratch) as three pointers; args[0] is
// its repetition count. Port probes are inline assembly, so that what runs is exactly the instruction measured.
#include <sstream>

#include "spec/error.h"
#include "tools/calibration.h"

namespace kriek::tools {
namespace {

/// The register prefix and intrinsic prefix of a vector width in bits (32: scalar).
struct Width {
  int bits;
  const char* reg;      ///< "xmm", "ymm", "zmm"
  const char* vtype;    ///< "__m128" ...; "float" for scalar
  const char* fmadd;    ///< fused multiply-add
  const char* add;
  const char* set1;
  const char* move;     ///< full-register load/store mnemonic
};

Width width(int bits) {
  switch (bits) {
    case 32: return {32, "xmm", "float", "__builtin_fmaf", "", "", "movss"};  // SSE: a scalar host may lack AVX
    case 128: return {128, "xmm", "__m128", "_mm_fmadd_ps", "_mm_add_ps", "_mm_set1_ps", "vmovups"};
    case 256: return {256, "ymm", "__m256", "_mm256_fmadd_ps", "_mm256_add_ps", "_mm256_set1_ps", "vmovups"};
    case 512: return {512, "zmm", "__m512", "_mm512_fmadd_ps", "_mm512_add_ps", "_mm512_set1_ps", "vmovups"};
  }
  KRIEK_ASSERT(false, "no probes for vectors of ", bits, " bits");
  return {};
}

constexpr int kChains = 12;  // covers FMA latency x issue width (4 x 2) and fits 16 registers
constexpr int kPortOps = 16;  // instructions per iteration of the port probes

void header(std::ostream& c, const std::string& name) {
  c << "void " << name << "(long *args, char *buffer, char *scratch) {\n"
    << "  (void)buffer; (void)scratch;\n  const long n = args[0];\n";
}

/// `chains` independent (or, with 1, dependent) chains of `op` at `w`; the sum goes to scratch.
void chains_probe(std::ostream& c, const std::string& name, const Width& w, int chains, bool fma) {
  header(c, name);
  const bool scalar = w.bits == 32;
  const std::string one = scalar ? "0.999999f" : std::string(w.set1) + "(0.999999f)";
  const std::string tiny = scalar ? "1e-7f" : std::string(w.set1) + "(1e-7f)";
  // The multiplier and addend are opaque to the compiler, which would otherwise fold chains that reach a fixed
  // point (2.0f + 1e-7f is 2.0f) out of the loop.
  c << "  " << w.vtype << " b = " << one << ", d = " << tiny << ";\n"
    << "  __asm__(\"\" : \"+v\"(b), \"+v\"(d));\n";
  for (int i = 0; i < chains; ++i) c << "  " << w.vtype << " a" << i << " = " << (scalar ? "(float)" + std::to_string(i) : std::string(w.set1) + "(" + std::to_string(i) + ".0f)") << ";\n";
  c << "  for (long i = 0; i < n; ++i) {\n";
  const int unroll = chains == 1 ? 8 : 1;
  for (int u = 0; u < unroll; ++u) {
    for (int i = 0; i < chains; ++i) {
      const std::string a = "a" + std::to_string(i);
      if (fma) c << "    " << a << " = " << w.fmadd << "(" << a << ", b, d);\n";
      else if (scalar) c << "    " << a << " = " << a << " + d;\n";
      else c << "    " << a << " = " << w.add << "(" << a << ", d);\n";
    }
  }
  c << "    __asm__ volatile(\"\" ::: \"memory\");\n  }\n";
  for (int i = 0; i < chains; ++i) c << "  __builtin_memcpy(scratch + " << i * w.bits / 8 << ", &a" << i << ", sizeof a" << i << ");\n";
  c << "}\n";
}

/// kPortOps instructions `mnemonic` per iteration on distinct registers and addresses of `buffer` (load: memory
/// to register; store: register to memory).
void port_probe(std::ostream& c, const std::string& name, const Width& w, const std::string& mnemonic, bool store) {
  header(c, name);
  c << "  for (long i = 0; i < n; ++i) {\n    __asm__ volatile(\n";
  for (int i = 0; i < kPortOps; ++i) {
    const std::string reg = std::string("%%") + w.reg + std::to_string(i % 8);
    const std::string mem = std::to_string(i * w.bits / 8) + "(%0)";
    c << "      \"" << mnemonic << " " << (store ? reg + ", " + mem : mem + ", " + reg) << "\\n\\t\"\n";
  }
  c << "      :: \"r\"(buffer) : \"memory\", \"xmm0\", \"xmm1\", \"xmm2\", \"xmm3\", \"xmm4\", \"xmm5\", \"xmm6\", "
       "\"xmm7\");\n  }\n}\n";
}

/// kPortOps AVX-512 `vpord`s whose second operand is a float from memory broadcast into every lane ({1to16}), into
/// distinct registers: how fast the load unit broadcasts an instruction's memory operand, as it does for an FMA
/// whose rows are one register wide (LLVM and GCC fold such a broadcast into the FMA). An integer op, so that the
/// FMA ports' rate does not bound it: Zen 4 broadcasts 1.8-2.0 operands per cycle beside its one 512-bit FMA, but
/// only one `vbroadcastss` into a register (a shuffle on an FP port), which kc_broadcasts measures.
void broadcast_operand_probe(std::ostream& c, const std::string& name) {
  header(c, name);
  c << "  for (long i = 0; i < n; ++i) {\n    __asm__ volatile(\n";
  for (int i = 0; i < kPortOps; ++i) {
    c << "      \"vpord " << i * 4 << "(%0)%{1to16%}, %%zmm7, %%zmm" << i % 7 << "\\n\\t\"\n";
  }
  c << "      :: \"r\"(buffer) : \"memory\", \"xmm0\", \"xmm1\", \"xmm2\", \"xmm3\", \"xmm4\", \"xmm5\", \"xmm6\", "
       "\"xmm7\");\n  }\n}\n";
}

/// Reads args[1] bytes of `buffer` n times, 8 widest loads per step.
void read_probe(std::ostream& c, const std::string& name, const Width& w) {
  header(c, name);
  const int step = 8 * w.bits / 8;
  c << "  const long bytes = args[1];\n  for (long r = 0; r < n; ++r) {\n"
    << "    for (const char *p = buffer, *end = buffer + bytes; p < end; p += " << step << ") {\n"
    << "      __asm__ volatile(\n";
  for (int i = 0; i < 8; ++i) {
    c << "        \"" << w.move << " " << i * w.bits / 8 << "(%0), %%" << w.reg << i << "\\n\\t\"\n";
  }
  c << "        :: \"r\"(p) : \"memory\", \"xmm0\", \"xmm1\", \"xmm2\", \"xmm3\", \"xmm4\", \"xmm5\", \"xmm6\", "
       "\"xmm7\");\n    }\n  }\n}\n";
}

}  // namespace

codegen::CSource calibration_source(Isa isa) {
  std::ostringstream c;
  c << "// kriek calibrate's micro-benchmarks (tools/calibration_probes.cpp)\n#include <immintrin.h>\n\n";
  // A chain of dependent integer adds: one per cycle, so the loop counts cycles. Register operands, not
  // immediates: Golden Cove cores (Sapphire Rapids) fold chains of immediate adds at rename, several per cycle
  // (the chain then read 16.1 GHz on a Xeon VM and every per-cycle figure came out 5x too small).
  header(c, "kc_clock");
  c << "  long x = 0, one = 1;\n  __asm__ volatile(\"\" : \"+r\"(one));\n  for (long i = 0; i < n; ++i) {\n"
    << "    __asm__ volatile(\n";
  for (int i = 0; i < kPortOps; ++i) c << "      \"add %1, %0\\n\\t\"\n";
  c << "      : \"+r\"(x) : \"r\"(one));\n  }\n  __builtin_memcpy(scratch, &x, sizeof x);\n}\n";
  const std::vector<int> widths = profile_widths(isa);
  for (int bits : widths) {
    chains_probe(c, "kc_fma_throughput_" + std::to_string(bits), width(bits), kChains, true);
    chains_probe(c, "kc_fma_latency_" + std::to_string(bits), width(bits), 1, true);
  }
  const Width widest = width(widths.back());
  port_probe(c, "kc_loads", widest, widest.move, false);
  port_probe(c, "kc_stores", widest, widest.move, true);
  port_probe(c, "kc_broadcasts", widest, widest.bits == 32 ? "movss" : "vbroadcastss", false);
  if (isa == Isa::avx512) broadcast_operand_probe(c, "kc_broadcast_operands");
  chains_probe(c, "kc_vector_ops", widest, kChains, false);
  read_probe(c, "kc_read", widest);
  // Load-to-use latency: a walk along pointers stored in `buffer`.
  header(c, "kc_chase");
  c << "  void **p = (void **)buffer;\n  for (long i = 0; i < n; ++i) {\n";
  for (int i = 0; i < 8; ++i) c << "    p = (void **)*p;\n";
  c << "  }\n  __builtin_memcpy(scratch, &p, sizeof p);\n}\n";
  // Copies rows of args[3] floats, args[2] floats apart, from a block of `buffer` into the panel `scratch`; each
  // repetition takes the next block (args[4] floats on, modulo args[5]), so every pass reads lines from L2.
  header(c, "kc_copy");
  c << "  const long rows = args[1], stride = args[2], width = args[3], step = args[4], span = args[5];\n"
    << "  const float *src = (const float *)buffer;\n  float *dst = (float *)scratch;\n"
    << "  for (long r = 0; r < n; ++r) {\n    const float *base = src + (r * step) % span;\n"
    << "    for (long i = 0; i < rows; ++i) {\n"
    << "      for (long j = 0; j < width; j += " << widest.bits / 32 << ") {\n";
  if (widest.bits == 32) c << "        dst[i * width + j] = base[i * stride + j];\n";
  else c << "        " << "_mm" << (widest.bits == 128 ? "" : std::to_string(widest.bits)) << "_storeu_ps(dst + i * width + j, _mm"
         << (widest.bits == 128 ? "" : std::to_string(widest.bits)) << "_loadu_ps(base + i * stride + j));\n";
  c << "      }\n    }\n    __asm__ volatile(\"\" ::: \"memory\");\n  }\n}\n";
  return codegen::CSource{c.str(), "kriek_calibration", 0, false, {}};
}

}  // namespace kriek::tools
