// toolchain/torch_env.h: the Python interpreter that imports torch and what a torch-form build
// needs from it (include and library folders, version, C++11 ABI, CUDA). `--python` /
// HONE_PYTHON, else the first of python3 on PATH, /usr/bin/python3, python on PATH whose
// `importlib.util.find_spec("torch")` works. Answers are cached on disk keyed by the interpreter
// and torch's version.py, so only the first query pays for `import torch`. Used by the
// KernelBuilder (torch form) and by the eval client to start its worker; any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hone::toolchain {

struct TorchEnv {
  std::filesystem::path python;      // the interpreter, as found (a venv's bin/python3 stays itself)
  std::string python_version;        // "3.11.2"
  std::filesystem::path torch_dir;   // .../site-packages/torch
  std::string version;               // torch.__version__: "2.11.0+cu130"
  std::optional<std::string> cuda;   // torch.version.cuda: "13.0"; nullopt for a CPU build
  bool cxx11_abi = true;             // torch._C._GLIBCXX_USE_CXX11_ABI
  std::vector<std::filesystem::path> include_dirs;
  std::filesystem::path library_dir;
  bool has_cuda_libraries = false;   // libtorch_cuda.so and libc10_cuda.so exist
};

struct TorchEnvLookup {
  std::optional<TorchEnv> env;
  std::string error;  // when absent: which interpreters were tried and why each failed
};

// `python`: an explicit interpreter (from --python or the engine); nullopt: $HONE_PYTHON, then the search.
TorchEnvLookup find_torch_env(const std::optional<std::filesystem::path>& python = std::nullopt);

}  // namespace hone::toolchain
