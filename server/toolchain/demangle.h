// toolchain/demangle.h: C++ symbol names for humans (abi::__cxa_demangle) and the unqualified
// function name inside a demangled signature, to pair ptxas/PTX/SASS entries with __global__
// functions in the source. Any thread.
#pragma once

#include <string>

namespace hone::toolchain {

// "_Z11relu_kernelPKfPfl" -> "relu_kernel(float const*, float*, long)"; the input when it is not
// a mangled name (extern "C" kernels).
std::string demangle(const std::string& symbol);

// "void ns::tile<128, float>(float*, int)" -> "tile"; "relu_kernel(float const*)" -> "relu_kernel".
std::string function_base_name(const std::string& demangled);

}  // namespace hone::toolchain
