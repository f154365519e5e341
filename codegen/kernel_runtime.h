// kriek's kernel runtime (codegen/runtime/kernel_runtime.cpp), which LLVM kernels call to run parallel loops on
// a team of threads of its own: its entry points for the JIT, and its position-independent object file, embedded
// in kriek at build time, for libraries whose kernels call it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
void kriek_parallel_for(void (*body)(void*, std::int64_t, std::int64_t), void* context, std::int64_t trips) noexcept;
void kriek_runtime_set_threads(int threads) noexcept;
int kriek_runtime_threads() noexcept;
}

namespace kriek::codegen {

/// The name LLVM kernels call kriek_parallel_for by.
inline constexpr const char* kParallelForSymbol = "kriek_parallel_for";

/// The runtime as an ELF object (position-independent, symbols hidden): link it into a library of LLVM kernels
/// with parallel loops, with kKernelRuntimeLibraries.
std::string_view kernel_runtime_object();

/// What a program or shared library linking the runtime object needs besides: the C++ library and threads.
inline const std::vector<std::string> kKernelRuntimeLibraries = {"-lstdc++", "-lpthread"};

}  // namespace kriek::codegen
