// toolchain/task_pairing.h: which task (KernelBench-format reference .py) a kernel is checked
// against: a `// hone: task=PATH` line in the kernel, else the same stem with .py beside it
// (softmax.cu <-> softmax.py), else a hone.toml in the kernel's folder or a parent folder
// (`[kernels]` table: "relu.cu" = "relu.py", paths relative to the hone.toml). Called by the
// engine (check, profile, optimize) and the language server; any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hone::toolchain {

struct TaskPairing {
  std::optional<std::filesystem::path> task;  // absolute; nullopt when nothing matched (or on error)
  std::string how;                   // "directive (line 3)", "same stem", "/ws/hone.toml"
  std::vector<std::string> tried;    // what was looked at, for the "no task" message
  std::optional<std::string> error;  // a directive naming a missing file, an unreadable hone.toml
};

// `source` is the kernel's text (an unsaved buffer or the file's contents).
TaskPairing find_task_for_kernel(const std::filesystem::path& kernel, std::string_view source);

}  // namespace hone::toolchain
