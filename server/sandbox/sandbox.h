// sandbox/sandbox.h: confinement of untrusted candidate code, its build (nvcc/g++ on a source a
// model wrote) and its run (the candidate process that loads the candidate: hone-runner or the
// python runner, started by the judge, which itself never loads candidate code). Detects at start
// what the machine supports (bubblewrap, or the kernel's namespaces through hone-confine), and
// turns a ProcessSpec into the confined command. The engine creates one Sandbox at start; the
// toolchain's KernelBuilder and the candidate launcher (eval/worker_launch) call wrap() from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/subprocess.h"

namespace hone::sandbox {

// bwrap: bubblewrap builds the view, hone-confine applies limits and the syscall filter inside it
// (and, around it, stays bwrap's parent so --die-with-parent follows it, not hone's thread).
// namespaces: hone-confine alone (user/mount/pid/net/ipc/uts namespaces, pivot_root, seccomp).
// none: the command runs as is, only with secrets removed from its environment.
enum class SandboxMode { bwrap, namespaces, none };

std::string_view to_string(SandboxMode mode);
// "bwrap" | "namespaces" | "none" -> mode; nullopt for anything else.
std::optional<SandboxMode> parse_sandbox_mode(std::string_view text);

// Resource limits applied to the confined command (0: no limit). Wall time is the caller's
// ProcessSpec::timeout (run_process kills the whole confined tree at the deadline).
struct SandboxLimits {
  std::uint64_t cpu_seconds = 0;  // RLIMIT_CPU
  // RLIMIT_AS. Leave 0 for GPU runs: the CUDA driver reserves a virtual address space far larger
  // than physical memory (UVM), so any useful cap breaks it; bound GPU runs by device memory
  // (the torch allocator's per-process fraction) and host memory by the machine.
  std::uint64_t address_space_bytes = 0;
  std::uint64_t open_files = 0;          // RLIMIT_NOFILE
  std::uint64_t processes = 0;           // RLIMIT_NPROC, counted per user namespace / sandbox user
  std::uint64_t file_size_bytes = 0;     // RLIMIT_FSIZE: the largest file it may write
  std::uint64_t tmp_bytes = 256u << 20;  // size of the private /tmp (memory-backed)
};

// A host file shown read-only at another path (a staged copy of a kernel's file at the original's path).
struct ShownFile {
  std::filesystem::path source;  // on the host
  std::filesystem::path dest;    // where it appears inside: an absolute path that exists on the host
};

// What a confined command may see and do. Paths are host paths, shown at the same path inside.
struct SandboxPolicy {
  std::filesystem::path scratch;                 // the only writable folder (created if missing)
  std::vector<std::filesystem::path> read_only;  // files and folders it may read (plus system_read_paths())
  std::vector<ShownFile> read_only_at;           // files it may read at another path
  // Paths masked inside read-only folders: a folder shows empty, a file reads as empty.
  std::vector<std::filesystem::path> hidden;
  bool gpu = false;  // bind the GPU device nodes (/dev/nvidia*, /dev/nvidia-caps, /dev/dri)
  SandboxLimits limits;
  // Variables added to (or replacing) the filtered environment; a secret-looking name is refused.
  std::map<std::string, std::string> set_env;
};

// The verdict's `sandbox` object (verdict.schema.json): how candidates were confined.
struct SandboxReport {
  SandboxMode mode = SandboxMode::none;
  bool explicitly_disabled = false;
  std::string warning;  // empty when confinement is the full default
};

// What this machine offers, found by trying each mechanism for real (a no-op run through it).
struct SandboxSupport {
  bool running_as_root = false;
  bool user_namespaces = false;                  // the kernel lets this process create a user namespace
  int landlock_abi = 0;                          // 0: Landlock unavailable
  bool seccomp = false;                          // seccomp filters available
  std::optional<std::filesystem::path> bwrap;    // found on PATH
  std::optional<std::filesystem::path> setpriv;  // found on PATH (bwrap mode as root drops to nobody with it)
  std::string bwrap_problem;                     // why bwrap mode is not usable; empty if it is
  std::filesystem::path confine_helper;          // hone-confine
  std::string namespaces_problem;                // why namespaces mode is not usable; empty if it is

  bool usable(SandboxMode mode) const;
  // The default: bwrap for an unprivileged user, namespaces as root (hone-confine mounts as root
  // and then drops to the sandbox user, which bwrap cannot do with root-only source folders).
  SandboxMode best() const;
  // Plain words: which mechanisms work here and what they confine.
  std::string describe() const;
};

// Tries every mechanism. `confine_helper`: hone-confine (default: beside the running executable).
// Takes ~50 ms (two no-op confined runs). Any thread.
SandboxSupport detect_support(std::optional<std::filesystem::path> confine_helper = std::nullopt);

// How the engine asks for a sandbox: `disabled` is --no-sandbox; `force` a specific mode
// ($HONE_SANDBOX=bwrap|namespaces|none; none counts as explicitly disabled).
struct SandboxRequest {
  bool disabled = false;
  std::optional<SandboxMode> force;
  std::optional<std::filesystem::path> confine_helper;
};

// The request with $HONE_SANDBOX applied (an unknown value is an error naming the variable).
SandboxRequest request_from_environment(SandboxRequest request);

class Sandbox {
 public:
  // Detects support and picks the mode. Throws std::runtime_error when a forced mode is not
  // usable here (the message says why). Created once by the engine at start.
  static Sandbox create(const SandboxRequest& request);
  // A sandbox of a known mode over known support (tests, and create()).
  Sandbox(SandboxMode mode, bool explicitly_disabled, SandboxSupport support);

  SandboxMode mode() const { return mode_; }
  const SandboxSupport& support() const { return support_; }
  // For every verdict; `warning` says in plain words what is weaker than the default.
  SandboxReport report() const;

  // The confined form of `spec` under `policy`: the argv of bwrap or hone-confine around the
  // command, the filtered environment, the same timeout, stdin and output cap. Creates the
  // scratch folder (and hands it to the sandbox user when hone runs as root). Throws
  // std::invalid_argument naming the path when a policy path is relative or missing. Any thread.
  ProcessSpec wrap(const ProcessSpec& spec, const SandboxPolicy& policy) const;

  // A confined command killed by signal N exits with code 128+N (bwrap's convention, kept by
  // hone-confine); this turns such a result back into `signal = N`. Unchanged in mode none.
  ProcessResult unwrap_result(ProcessResult result) const;

  // The uid:gid candidates run as when hone runs as root (nobody), else nullopt.
  std::optional<std::pair<unsigned, unsigned>> sandbox_user() const;

 private:
  SandboxMode mode_;
  bool explicitly_disabled_;
  SandboxSupport support_;
};

// Read-only system folders every confined command gets: /usr and the merged-/usr links, /etc's
// loader and name-service files, /sys. Exposed for tests and for the report.
std::vector<std::filesystem::path> system_read_paths();

// The install root of a compiler (…/cuda-13.0 for …/cuda-13.0/bin/nvcc): what a build must read.
std::filesystem::path compiler_root(const std::filesystem::path& compiler);

// Folders a Python interpreter needs (its prefixes, sys.path, the real executable), found by
// running it once, unconfined and without importing anything beyond the standard library.
// Throws std::runtime_error with the command's output when it cannot run. Cached per path.
std::vector<std::filesystem::path> python_read_paths(const std::filesystem::path& python);

// A build's policy: the kernel's folder tree read-only (its dot-files hidden), the compiler's
// root, hone's include folder and extra include folders read-only; `out_dir` is the scratch.
// Limits: 10 min CPU, 16 GiB address space, 256 processes, 1024 files, 4 GiB file size.
SandboxPolicy build_policy(const std::filesystem::path& kernel_dir, const std::filesystem::path& out_dir,
                           const std::vector<std::filesystem::path>& toolchain_paths);

// A build's policy that shows only the kernel's own files: each staged copy (stage_kernel_files)
// at its original path, nothing else of the kernel's folder; the rest as build_policy. The sandbox
// user reads the copies whatever the modes of the originals and their folders (a kernel in root's
// mode-700 temporary folder). `staged`: the folder stage_kernel_files returned.
SandboxPolicy staged_build_policy(const std::filesystem::path& kernel_dir, const std::filesystem::path& staged,
                                  const std::vector<std::filesystem::path>& relative_files,
                                  const std::filesystem::path& out_dir,
                                  const std::vector<std::filesystem::path>& toolchain_paths);

// A candidate process's policy: python's folders, hone's share folder, the task file, the
// folder of built candidates; `gpu` binds the device nodes and lifts the address-space limit.
SandboxPolicy run_policy(const std::filesystem::path& scratch, const std::vector<std::filesystem::path>& read_paths,
                         bool gpu);

}  // namespace hone::sandbox
