// toolchain/tools.h: finding the compilers hone drives (nvcc, the host C++ compiler, cuobjdump)
// and their versions, and the architecture of the local GPU. Versions are cached in memory and
// on disk keyed by the binary's path, mtime and size, so a cached build spawns nothing.
// Called by the KernelBuilder from any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hone::toolchain {

struct Tool {
  std::filesystem::path path;
  std::string version;  // one line: "Cuda compilation tools, release 13.0, V13.0.88", "g++ (Debian 12.2.0-14) 12.2.0"
};

struct ToolLookup {
  std::optional<Tool> tool;
  std::string error;  // when absent: what was tried and what to install or set
};

// $HONE_NVCC, else $CUDA_HOME/bin/nvcc (or $CUDA_PATH; when set, no further search), else nvcc
// on PATH, else /usr/local/cuda/bin/nvcc.
ToolLookup find_nvcc();

// $HONE_CXX, else $CXX, else g++ on PATH, else c++ on PATH.
ToolLookup find_host_compiler();

// cuobjdump beside nvcc, else on PATH, else /usr/local/cuda/bin; nullopt where there is none.
std::optional<std::filesystem::path> find_cuobjdump(const std::filesystem::path& nvcc);

// The version line of a compiler (cached); throws std::runtime_error when it cannot be run.
std::string tool_version(const std::filesystem::path& binary);

// "sm_86" from `nvidia-smi --query-gpu=compute_cap` for the first visible GPU (9.0: "sm_90a", the
// arch-specific target); nullopt without nvidia-smi or a GPU. Cached per boot and
// CUDA_VISIBLE_DEVICES.
std::optional<std::string> local_gpu_arch();

// The architecture a build uses: `requested` when given, else the local GPU's, else sm_90.
std::string resolve_arch(const std::optional<std::string>& requested);

// True for sm_NN / sm_NNN with an optional a/f suffix (sm_90a, sm_100f).
bool valid_arch(const std::string& arch);

}  // namespace hone::toolchain
