// toolchain/kernel_facts.h: assembles the per-kernel static facts of a CUDA build: resources from
// the ptxas report, constant bytes from the cubin, instruction facts from the PTX and (where
// cuobjdump exists) the SASS, the kernel's line in the user's file, and theoretical occupancy
// with the block size from __launch_bounds__, a launch site, or an assumed 256. Used by the
// KernelBuilder after a successful nvcc run; any thread.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "protocol/build_report.h"
#include "support/subprocess.h"
#include "toolchain/kernel_source.h"

namespace hone::toolchain {

inline constexpr int kAssumedBlockSize = 256;

struct KernelFactsInputs {
  const SourceFacts* source = nullptr;
  std::filesystem::path kernel;             // the user's file (absolute)
  std::string arch;
  std::string ptxas_output;                 // the compiler's output with the -Xptxas -v lines
  std::filesystem::path ptx;                // kept PTX (may be missing)
  std::filesystem::path cubin;              // kept cubin (may be missing)
  std::optional<std::filesystem::path> cuobjdump;
  std::filesystem::path work_dir;
  std::chrono::seconds timeout{60};
  std::stop_token stop;
  std::function<ProcessSpec(ProcessSpec)> wrap_command;
  std::optional<ProcessResult> sass_run;    // sass_argv's run when the builder started it early
};

// The cuobjdump command whose output gives the SASS facts.
std::vector<std::string> sass_argv(const std::filesystem::path& cuobjdump, const std::filesystem::path& cubin);

struct KernelFacts {
  std::vector<protocol::KernelStatic> kernels;
  bool sass_available = false;
  std::string sass_error;  // cuobjdump ran and failed: its message
};

KernelFacts collect_kernel_facts(const KernelFactsInputs& in);

// The line of a __global__ function (by mangled name) when it is defined in the kernel's own file.
std::optional<int> kernel_line_in_file(const SourceFacts& source, const std::filesystem::path& kernel, const std::string& mangled);

}  // namespace hone::toolchain
