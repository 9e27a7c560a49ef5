// toolchain/cuda_libraries.h: the CUDA libraries a kernel's headers name (issue 15): a CUDA
// kernel (either form) that includes cuBLAS, cuBLASLt, cuRAND's host API, cuFFT, cuSPARSE,
// cuSOLVER or cuDNN headers is linked against those libraries, found in the CUDA toolkit beside
// nvcc, then in torch's library folder and the NVIDIA wheels beside torch; the library folder
// goes into the kernel's rpath (the candidate processes may read the toolkit's and torch's).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

struct CudaLibrary {
  std::string name;                    // "cublas" (linked as -lcublas)
  std::filesystem::path library_dir;   // where lib<name>.so* was found; empty: not found
  std::filesystem::path include_dir;   // where its header lies when not in the toolkit's include folder
};

// The libraries whose headers the texts include (`#include <cublas_v2.h>` ...), in a fixed order.
std::vector<std::string> cuda_libraries_named(const std::vector<std::string_view>& texts);

// Where each named library is: `toolkit_root` (nvcc's ../), then `torch_library_dir` and the
// NVIDIA wheels (`<site-packages>/nvidia/*/lib`) beside it when not empty.
std::vector<CudaLibrary> locate_cuda_libraries(const std::vector<std::string>& names,
                                               const std::filesystem::path& toolkit_root,
                                               const std::filesystem::path& torch_library_dir);

// nvcc arguments: -I for headers outside the toolkit, -L, -l and the rpath (as -Xlinker pairs).
std::vector<std::string> cuda_library_flags(const std::vector<CudaLibrary>& libraries);

}  // namespace hone::toolchain
