// toolchain/cubin_constants.h: constant-memory bytes per kernel, read from the section headers of
// the cubin nvcc kept (ptxas in CUDA 13 no longer prints cmem[] with -v): the kernel's parameter
// bank (.nv.constant0.<kernel>), its compiler constants (.nv.constant2.<kernel>) and the
// module's __constant__ data (.nv.constant3), which every kernel of the module can read.
// Used by the KernelBuilder; any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace hone::toolchain {

// Mangled kernel name -> bytes; empty when the file is not a readable 64-bit ELF.
std::map<std::string, std::int64_t> cubin_constant_bytes(const std::filesystem::path& cubin);

}  // namespace hone::toolchain
