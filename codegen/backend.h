// The two code generators a kernel can go through, by name (`--backend llvm|c`): LLVM IR JIT-compiled in process
// (emit_llvm.h), or C compiled by the system compiler and loaded (emit_c.h, compile.h).
#pragma once

#include <string_view>

namespace kriek::codegen {

enum class Backend : unsigned char { llvm, c };

/// The default backend of `kriek run` and the REPL's `run`: LLVM, at parity or better on the matmul suite (README).
inline constexpr Backend kDefaultBackend = Backend::llvm;

/// "llvm" or "c".
std::string_view backend_name(Backend b);
/// The backend named `name`; a UserError naming it otherwise.
Backend parse_backend(std::string_view name);

}  // namespace kriek::codegen
