// toolchain/command_runner.h: runs one compiler command of a build: in its work folder (TMPDIR
// pointed there too, so the folder is all it writes), with the build's deadline and stop token,
// through the caller's wrap hook (the sandbox). Used by the KernelBuilder and the glue; any thread.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace hone::toolchain {

struct CompilerCommand {
  std::vector<std::string> argv;
  std::filesystem::path work_dir;
  std::chrono::seconds timeout{300};
  std::stop_token stop;
  std::function<ProcessSpec(ProcessSpec)> wrap;  // identity when empty
  std::map<std::string, std::string> env;         // set on top of the inherited environment
};

ProcessResult run_compiler(const CompilerCommand& command);

// "nvcc -arch=sm_90 ... -o kernel.so", quoting arguments with spaces, for messages.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace hone::toolchain
