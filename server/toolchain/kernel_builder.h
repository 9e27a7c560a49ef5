// toolchain/kernel_builder.h: turns a kernel file (or an unsaved editor buffer) into a loadable
// shared library plus everything the compiler can tell about it (diagnostics in the user's
// lines, per-kernel registers/spills/shared memory, PTX and SASS instruction facts, theoretical
// occupancy), through a content-addressed build cache. The one entry point of hone_toolchain for
// the engine, the language server and the optimizer; `build` is called from their worker threads
// concurrently (and from several processes sharing one cache folder).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "protocol/build_report.h"
#include "support/subprocess.h"
#include "toolchain/kernel_source.h"
#include "toolchain/task_constants.h"

namespace hone::toolchain {

enum class BuildDevice { Cuda, Cpu };

struct BuildRequest {
  std::filesystem::path kernel;             // the kernel file (relative paths: to the process's cwd)
  std::optional<std::string> contents;      // an unsaved editor buffer; nullopt: read the file
  std::optional<std::string> arch;          // "sm_90"; nullopt: the local GPU's, else sm_90 (CUDA only)
  std::optional<BuildDevice> device;        // the device the caller means to run on: checked against the language
  std::optional<std::filesystem::path> python;  // torch form: the interpreter that imports torch
  std::chrono::seconds timeout{300};        // per compiler command; the whole process group is killed
  std::vector<std::string> extra_flags;     // appended to the compiler command (-DTILE=64, -maxrregcount=64 ...)
  std::stop_token stop;                     // a stop request kills a running compile (outcome Cancelled)
  // Wraps each compiler command (the sandbox's hook). Each command runs with its working directory
  // set to the only folder it writes to (TMPDIR points there too). Identity when empty.
  std::function<ProcessSpec(ProcessSpec)> wrap_command;
  bool use_cache = true;                    // false: rebuild and replace the cache entry
  // A file without hone's form (or a header without `forward`) builds plain: an object for its
  // diagnostics and kernel facts, no library (BuildResult::plain). true: such a file is a compile
  // error naming what to add (a check needs a library to load).
  bool require_form = false;
  std::vector<std::string> project_flags;   // the project's flags for this file (compile_db.h), plain builds
  // A header compiled through a project source that includes it: that source and its #include's
  // line (its text before that line is compiled first). Plain builds only.
  std::optional<std::filesystem::path> includer;
  int includer_line = 0;
  // The task's __init__ scalars: `constexpr hone::task::<name>` before the kernel's first line.
  std::vector<TaskConstant> task_constants;
  // A load_inline answer's sources (the engine writes `contents` with #line directives into the
  // .py): torch form without a `forward`; these functions become torch.ops.<namespace>.<name>.
  std::vector<std::string> inline_functions;
};

enum class BuildOutcome {
  Built,         // report.ok
  CompileError,  // the kernel did not compile (diagnostics say why; also no forward / unknown form)
  TimedOut,      // a compiler command ran past the timeout
  Cancelled,     // the stop token fired
  BadInput,      // missing file, unknown extension, invalid arch, language/device mismatch
  MissingTool,   // no nvcc, no host compiler, no Python with torch for the torch form; or the
                 // environment failed (an unwritable cache folder, a full disk)
};
std::string_view to_string(BuildOutcome outcome);

struct BuildResult {
  BuildOutcome outcome = BuildOutcome::BadInput;
  std::string error;  // for BadInput / MissingTool / TimedOut / Cancelled: what happened and what to do
  bool ok() const { return outcome == BuildOutcome::Built; }
  bool cached = false;
  double seconds = 0;
  std::filesystem::path library;          // the built .so inside the cache (empty unless built, and for plain builds)
  bool plain = false;                     // built as an object only (no form, or a header): nothing to load
  std::optional<KernelForm> form;
  KernelLanguage language = KernelLanguage::Cuda;
  std::string op_namespace;               // torch form: torch.ops.<op_namespace>.forward
  std::string key;                        // the build cache key (sha256 hex)
  std::string kernel_hash;                // sha256 of the source and its local headers
  std::vector<std::string> own_kernels;   // the kernel's own __global__ names (file and local headers)
  std::map<std::string, double> stage_seconds;  // "analyze", "torch_env", "glue", "compile", "facts", ...
                                                // ("compile_light": a light torch build that failed;
                                                // "nvcc_host_front", "nvcc_device",
                                                // "nvcc_host_compile_link": the overlapped nvcc)
  std::string torch_headers;  // torch form, fresh builds: "light", or "full: <why>"
  std::string nvcc_overlap;   // fresh CUDA builds: "overlapped" (host front end beside the device
                              // chain, toolchain/nvcc_pipeline.h), or "one command: <why>"
  protocol::CompileReport report;
};

class KernelBuilder {
 public:
  // Resolves hone's share folder (hone::share_dir()) and cache folder (hone::cache_dir()) once.
  // Throws std::runtime_error when the share folder is missing.
  KernelBuilder();
  KernelBuilder(std::filesystem::path share_dir, std::filesystem::path cache_dir);

  // Never throws for a kernel's problems: they come back as the outcome and the report.
  BuildResult build(const BuildRequest& request) const;

  const std::filesystem::path& share_dir() const { return share_; }
  const std::filesystem::path& cache_dir() const { return cache_; }

 private:
  std::filesystem::path share_;
  std::filesystem::path cache_;
};

}  // namespace hone::toolchain
