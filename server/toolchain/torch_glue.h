// toolchain/torch_glue.h: hone/torch_glue.cpp (the dispatcher registration every torch-form
// kernel links) compiled once per torch installation, ABI and host compiler, cached under
// cache_dir()/glue/<key>/torch_glue.o. Used by the KernelBuilder from any thread; concurrent
// callers in one process wait for one compile, other processes race safely by rename.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "support/subprocess.h"
#include "toolchain/torch_env.h"

namespace hone::toolchain {

struct GlueRequest {
  std::filesystem::path share_dir;
  std::filesystem::path cache_dir;
  std::filesystem::path host_compiler;
  std::string host_compiler_version;
  const TorchEnv* torch = nullptr;
  std::chrono::seconds timeout{300};
  std::stop_token stop;
  std::function<ProcessSpec(ProcessSpec)> wrap_command;
};

struct GlueResult {
  std::optional<std::filesystem::path> object;  // the cached torch_glue.o
  bool compiled = false;                        // false: it was already cached
  ProcessResult process;                        // when compiled (or failed)
  std::string error;                            // when absent: the command and its output
};

GlueResult ensure_torch_glue(const GlueRequest& request);

// Where ensure_torch_glue(request) puts the object, without compiling it: a kernel's compile can
// start before the glue exists and wait for it only to link. nullopt (and *error) when hone's
// share folder lacks the glue source.
std::optional<std::filesystem::path> torch_glue_object(const GlueRequest& request, std::string* error = nullptr);

}  // namespace hone::toolchain
