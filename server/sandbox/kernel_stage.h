// sandbox/kernel_stage.h: copies of the files a build reads from the kernel's folder (the kernel
// and the local headers the include check walked), staged where a confined build can read them
// whoever it runs as; staged_build_policy shows each copy at its original path. Called by the
// engine before each build (Engine::build), from any thread and any number of processes.
#pragma once

#include <filesystem>
#include <vector>

#include "sandbox/include_guard.h"

namespace hone::sandbox {

struct StagedKernel {
  std::filesystem::path dir;                  // the staged copy of the kernel's folder
  std::vector<std::filesystem::path> files;   // relative to it (and to the kernel's folder)
};

// Writes `files` (each inside `kernel_root`, with the contents the include check saw) under
// `stage_root`/<digest of their paths and contents>/ at their paths relative to `kernel_root`:
// folders 0755, files 0644, so the sandbox user reads them whatever the originals' modes and
// folders. The same set is staged once (published by an atomic rename). Throws
// std::runtime_error naming the path when a file lies outside `kernel_root` or cannot be written.
StagedKernel stage_kernel_files(const std::filesystem::path& kernel_root, const std::vector<LocalFile>& files,
                                const std::filesystem::path& stage_root);

}  // namespace hone::sandbox
