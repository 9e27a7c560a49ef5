// engine/engine.h: hone's engine, the one door both front ends use (the hone CLI on its main
// thread, hone-server from its job scheduler's threads), in the manner of clangd's ClangdServer:
// it builds, verifies, profiles and optimizes kernels, lists and exports stored runs and the GPU
// spec table, reports progress through callbacks and knows nothing of LSP or JSON-RPC. Every
// call is synchronous, thread-safe and cancellable; results are protocol/ types. Inside: compiles
// run in parallel on the calling threads; one judge per device (a long-lived Python process
// that never loads candidate code) serialises the checks that use that device, and runs each
// candidate in a fresh candidate process of its own (docs/ARCHITECTURE.md). Its public headers (this one,
// optimize_request.h, kernel_files.h) name nothing below the engine but protocol/ and support/.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/optimize_request.h"
#include "protocol/device.h"
#include "protocol/optimize_result.h"
#include "protocol/sass_counters.h"
#include "protocol/verdict.h"

namespace hone {

// Where a kernel runs (protocol/device.h). Auto: the GPU for a .cu kernel when the worker sees
// one (a .cu kernel on a machine without a GPU is an environment error), the CPU for a .cpp kernel.
using protocol::Device;
using protocol::DeviceKind;
using protocol::parse_device_kind;

// Which GPUs of the host the checks spread over (`--gpus`): the one GPU EngineOptions::gpu_index
// names (the default), all the worker sees, the first N, or a list of indices. parse() takes
// "all" | "N" | "0,2" and returns nullopt for anything else.
struct GpuSelection {
  enum class Mode { One, All, Count, List };
  Mode mode = Mode::One;
  int count = 1;             // Count
  std::vector<int> indices;  // List
  static std::optional<GpuSelection> parse(std::string_view text);
  std::string text() const;  // "all", "2", "0,2"; "" for One
};

// Where checks run (`--executor`): this host's pool of judges, or Slurm jobs (server/cluster),
// each running a batch of checks with `hone` on a node of the cluster.
enum class Executor { Local, Slurm };

// The Slurm executor's settings (flags, else hone.toml's [slurm] table).
struct SlurmOptions {
  std::string partition;   // empty: the cluster's default
  std::string account;
  std::string time_limit = "00:30:00";  // sbatch --time of one job
  std::string gres;        // "gpu:1"; empty: none (CPU checks)
  int batch_size = 4;      // checks per job (a job's start-up is paid once per batch)
  int max_attempts = 3;    // jobs a check may take before its verdict says what happened
  std::vector<std::string> extra_args;  // more sbatch arguments
  std::string hone_binary; // the hone the job runs; empty: this one
};

// Fixed for the life of an Engine.
struct EngineOptions {
  std::filesystem::path workspace;              // relative paths and hone.toml lookup; empty: cwd
  std::optional<std::filesystem::path> python;  // --python / HONE_PYTHON; nullopt: the first that imports torch
  DeviceKind device = DeviceKind::Auto;         // default for requests that say Auto
  int gpu_index = 0;                            // which GPU "cuda" means
  GpuSelection gpus;                            // the GPUs checks spread over (default: gpu_index's)
  Executor executor = Executor::Local;
  SlurmOptions slurm;
  std::optional<std::string> arch;              // "sm_90"; nullopt: the local GPU's, else sm_90
  bool sandbox = true;                          // false only by explicit choice (--no-sandbox)
  int seeds = 3;                                // correctness trials per check (at least 3 is the policy)
  std::chrono::seconds compile_timeout{300};    // one compiler command
  std::chrono::seconds check_timeout{180};      // one worker request (a check, a task's signature)
  std::chrono::seconds worker_start_timeout{120};  // the worker's start-up (import torch, CUDA context)
  // The project's compile_commands.json (a file or its folder); nullopt: hone.toml's
  // `compile_commands`, else found walking up from each file (as clangd does).
  std::optional<std::filesystem::path> compile_commands;
};

// Problems that are not a kernel's verdict: bad input (a missing file, no task paired with the
// kernel, a task that cannot be loaded or run), a broken environment (no Python that imports
// torch), a .cu kernel on a machine whose worker sees no GPU (NoGpu, an environment problem of
// its own kind: check builds the kernel first and says so), cancellation, or a bug. The CLI exits
// 2 on these (3 for NoGpu from `hone check`); the server answers with an error. Thrown by every
// Engine call.
class EngineError : public std::runtime_error {
 public:
  enum class Kind { Usage, Environment, Task, Cancelled, Internal, NoGpu };
  EngineError(Kind kind, const std::string& message, std::string detail = {})
      : std::runtime_error(message), kind_(kind), detail_(std::move(detail)) {}
  Kind kind() const { return kind_; }
  // Supporting text: a traceback, the failing command's output, the worker's last stderr lines.
  const std::string& detail() const { return detail_; }

 private:
  Kind kind_;
  std::string detail_;
};

// A progress report: stage is one of "build", "worker" (starting the worker), "task",
// "correctness", "timing", "baseline", "recheck" (and "profile", "optimize" for those calls);
// message is short human text ("trial 2/3").
struct Progress {
  std::string stage;
  std::string message;
};

// Per call: how to stop it and where to report. `progress` is called on the calling thread.
// A stop request ends the call soon with EngineError(Cancelled): a compile is killed, and a
// worker request in flight is abandoned by killing that worker (the next call starts a new one).
struct CallContext {
  std::stop_token stop;
  std::function<void(const Progress&)> progress;
};

// A kernel: its path, and the editor's unsaved buffer when there is one.
struct KernelSource {
  std::filesystem::path path;            // absolute, or relative to the workspace
  std::optional<std::string> contents;   // nullopt: read the file
};

// Any .cu/.cuh (and a hone .cpp) builds: a file in hone's form into a loadable library, any
// other file (no form, or a header without forward) "plain", into an object for its diagnostics
// and kernel facts, with its project's flags (compile_commands.json) when it has a project.
struct BuildRequest {
  KernelSource kernel;
  std::vector<std::string> extra_flags;  // compiler flags and -D defines (the optimizer's tuner)
  bool use_cache = true;                 // false: rebuild and replace the cache entry
  bool require_form = false;             // true (a check): a file without hone's form is a compile error saying what to add
  // The task whose __init__ scalars the kernel sees as `hone::task::<name>` (asked of the worker
  // only when the source names hone::task::); nullopt: paired with the kernel as find_task does.
  std::optional<std::filesystem::path> task;
  // A KernelBench answer's load_inline sources (engine/answer.cpp): the functions to register as
  // torch.ops.<namespace>.<name> instead of a `forward`.
  std::vector<std::string> inline_functions;
};

// What the worker derived from a task: the expected forward signature and the task's facts.
struct TaskInfo {
  std::filesystem::path path;
  std::string hash;
  std::string name;
  protocol::Signature signature;  // inputs, then state_dict() tensors, then outputs; both declarations
  std::int64_t input_bytes = 0;
  std::int64_t output_bytes = 0;
  bool weak = false;              // the reference output barely depends on its inputs
  double max_abs_diff_across_seeds = 0;
  // get_init_inputs() by Model.__init__ parameter: [{"name", "kind": "int"|"float"|"bool"|"tensor"|...,
  // "value", "cpp": "hone::task::<name>" (the scalars a kernel sees as constexprs)}].
  nlohmann::json init = nlohmann::json::array();
};

struct CheckRequest {
  KernelSource kernel;
  std::optional<std::filesystem::path> task;  // nullopt: paired with the kernel (// hone: task=, stem, hone.toml)
  DeviceKind device = DeviceKind::Auto;       // Auto: EngineOptions::device, then the kernel's language
  std::optional<int> seeds;                   // nullopt: EngineOptions::seeds
  std::optional<double> atol;                 // nullopt: by dtype, or the task's HONE_ATOL
  std::optional<double> rtol;
  bool timing = true;                         // false: correctness only (no timing, no baselines)
  bool baselines = true;                      // time the reference eager and compiled (cached on disk)
  bool compile_baseline = true;               // false: eager only (torch.compile's first run is slow)
  // false: a cached baseline flagged noisy is used (and flagged) rather than measured again; the
  // optimizer's candidates use it so a run does not re-time the reference for every candidate
  // (the original kernel and the winner's re-verification still measure it afresh).
  bool remeasure_noisy_baselines = true;
  std::vector<std::string> extra_flags;       // as BuildRequest::extra_flags
  std::optional<std::chrono::seconds> deadline;  // nullopt: EngineOptions::check_timeout
  // The kind of GPU to run on ("NVIDIA H200"; a fake GPU's name): that kind's queue of the pool.
  // nullopt: the first free GPU of any kind. (`--verify-on all` asks for each kind in turn.)
  std::optional<std::string> gpu_kind;
  bool local_only = false;                    // run here even when the executor is Slurm (a job's own checks)
};

// One GPU of the pool (Engine::pool_state): what it is, whether it is still in, and why not.
struct PoolMemberInfo {
  std::string device;        // "cuda:1" (a fake GPU: "cpu")
  std::optional<int> index;
  std::string kind;          // "NVIDIA H200"
  std::string uuid;
  bool retired = false;
  std::string why;           // why it left the pool
  bool busy = false;         // a check holds it now
  int checks = 0;
  std::optional<int> judge_pid;  // its judge's process id, once started
};

// What the worker process reported at start-up (its `hello`).
struct WorkerEnvironment {
  std::string python;      // "3.11.2"
  std::string executable;  // the interpreter
  std::string torch;       // "1.13.0a0"
  std::optional<std::string> torch_cuda;
  std::vector<protocol::DeviceFacts> devices;  // the GPUs it sees (none on a machine without one)
};

// hone profile's request (engine/profile.cpp).
struct ProfileRequest {
  KernelSource kernel;
  std::optional<std::filesystem::path> task;    // nullopt: paired with the kernel
  std::string metrics = "default";              // "default" (<= 2 replay passes on sm_90) or "full"
  bool baseline = true;                         // profile the reference (the plot's baseline) and time its baselines
  std::optional<std::filesystem::path> plot;    // the SVG's path; nullopt: .hone/profiles/ in the workspace
  std::optional<std::chrono::seconds> deadline; // the profile request to the worker; nullopt: 600 s
};

struct ProfileResult {
  protocol::Verdict verdict;                  // verdict.profile is set when the kernel was profiled
  std::optional<std::filesystem::path> plot;  // the SVG written, when a roofline point existed
  std::string skipped;                        // why the kernel was not profiled (empty when it was)
};

// The machine code of one kernel of a file, each line mapped to its source line (from -lineinfo).
struct MachineCodeRequest {
  KernelSource kernel;
  std::string kind = "ptx";  // "ptx" | "sass" (SASS needs nvdisasm, else cuobjdump without a mapping)
  std::string function;      // the kernel's unqualified name; empty: the one covering `line`, else the first
  int line = 0;              // 1-based source line (the cursor's)
};
struct MachineCodeLine {
  std::string text;
  std::string file;  // empty: the line maps to no source
  int line = 0;      // 1-based
  std::optional<protocol::SassCounts> counters;  // SASS: this instruction's counts in the last profile
};
// The counts of one source line: the sum over the SASS instructions mapped to it.
struct SourceLineCounters {
  std::string file;
  int line = 0;  // 1-based
  protocol::SassCounts counters;
};
struct MachineCode {
  std::string kind;                    // "ptx" | "sass"
  std::string symbol;                  // the function shown, mangled
  std::string name;                    // unqualified
  std::vector<std::string> functions;  // the unqualified names of every function in the build
  std::vector<MachineCodeLine> lines;
  bool mapped = true;                  // false: no source mapping (SASS from cuobjdump)
  // SASS: the per-instruction counters of the last profile of this same build (Engine::profile
  // keeps them per build key), in `counter_metrics` order; `counters_note` says where they come
  // from, or why there are none ("no profile of this build yet: run Profile to see per-line
  // counters"). Empty for PTX.
  std::vector<std::string> counter_metrics;
  std::string counters_note;
  std::optional<std::string> profiled_at;        // ISO 8601 UTC of that profile
  std::vector<SourceLineCounters> source_counters;  // by file, then line
};

class Engine {
 public:
  // Finds nothing and starts nothing yet: the interpreter and the workers are found and started
  // on first use. Throws EngineError(Usage) for invalid options.
  explicit Engine(EngineOptions options);
  ~Engine();  // shuts the workers down
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineOptions& options() const;

  // Compile only (cached by content), confined as a check's build is: `hone build` and the
  // editor's build on save. A failed compile (or a compiler past its deadline) is a report with
  // compile.ok false and its diagnostics; a missing file, an unknown file type or a missing tool
  // throws EngineError. Any thread; builds run in parallel.
  protocol::BuildReport build(const BuildRequest& request, const CallContext& ctx = {});

  // The PTX or SASS of a kernel of a CUDA file, from its (cached) build; SASS with the counters
  // of the last profile of the same build. Throws EngineError(Usage) for a file that does not
  // compile or is not CUDA, EngineError(Environment) without the tool.
  MachineCode machine_code(const MachineCodeRequest& request, const CallContext& ctx = {});

  // The task paired with a kernel: `// hone: task=PATH` in its source, else the same stem with .py,
  // else hone.toml. Throws EngineError(Usage) naming what was tried when there is none.
  std::filesystem::path find_task(const KernelSource& kernel) const;

  // The device a check of this kernel would use (starts a worker when it must ask about GPUs).
  // Throws EngineError(Usage) for a kernel that cannot run on the requested kind of device, and
  // EngineError(NoGpu) for a .cu kernel on a machine whose worker sees no GPU.
  Device resolve_device(const KernelSource& kernel, DeviceKind requested, const CallContext& ctx = {});

  // The task's expected forward signature, derived by the worker. Any thread.
  // Throws EngineError(Task) when the task cannot be loaded or run.
  TaskInfo task_info(const std::filesystem::path& task, DeviceKind device, const CallContext& ctx = {});

  // Build + verify + time -> one Verdict. A kernel's failure (compile error, wrong answer, crash,
  // hang, cheat) is a verdict, never an exception; bad input and environment problems throw
  // EngineError. A .cu kernel on a machine without a GPU is built first: a compile error is its
  // verdict (flagged no_gpu), a good build throws EngineError(NoGpu) saying it built. Any thread:
  // checks of one device are serialised on its worker.
  protocol::Verdict check(const CheckRequest& request, const CallContext& ctx = {});

  // Many checks at once (hone bench, a Slurm batch): spread over the pool's GPUs (or submitted
  // as Slurm jobs with Executor::Slurm); `on_verdict(i, verdict)` is called as each finishes, on
  // an engine thread, one call at a time. Returns the verdicts in request order; a request that
  // could not be checked (bad input, a broken environment) has its EngineError in errors[i]
  // instead. Cancellation throws EngineError(Cancelled).
  struct ManyResult {
    std::vector<std::optional<protocol::Verdict>> verdicts;
    std::vector<std::optional<EngineError>> errors;
  };
  ManyResult check_many(const std::vector<CheckRequest>& requests, const CallContext& ctx = {},
                        std::function<void(std::size_t, const protocol::Verdict&)> on_verdict = {});

  // The pool of a kind of device (its GPUs; the CPU's judges), built on first use from the
  // worker's hello and EngineOptions::gpus. pool_width: the members still in it; gpu_kinds: their
  // kinds; pool_state: every member, retired ones with why. Any thread.
  int pool_width(DeviceKind device, const CallContext& ctx = {});
  std::vector<std::string> gpu_kinds(DeviceKind device, const CallContext& ctx = {});
  std::vector<PoolMemberInfo> pool_state(DeviceKind device, const CallContext& ctx = {});

  // The reference's own time in one mode ("eager" | "compile"), measured by the worker with the
  // candidates' timing code and cached on disk per (task, device, torch version). `timing` is
  // absent and `unavailable` says why when the mode cannot run here (torch.compile on torch < 2).
  // Throws EngineError(Task) when the task cannot run. Any thread.
  protocol::ReferenceTiming time_reference(const std::filesystem::path& task, DeviceKind device,
                                           const std::string& mode, const CallContext& ctx = {});

  // The worker's hello for a device (starts the worker if needed). Any thread.
  WorkerEnvironment environment(DeviceKind device, const CallContext& ctx = {});

  // Checks the kernel (a verdict as `check` gives), then, when it ran to completion on the GPU,
  // profiles one candidate call and one reference call in a replay pass separate from timing and
  // fills verdict.profile (protocol/profile_report.h), writing the SVG roofline plot and keeping
  // the per-instruction counters for the SASS view of this build (machine_code). The check's
  // build, staged task and device serve the profile too. Measures the GPU's ceilings first when
  // none are cached. Throws EngineError(Usage) for a
  // kernel that does not run on a GPU. Any thread; serialised with the checks on the GPU worker.
  ProfileResult profile(const ProfileRequest& request, const CallContext& ctx = {});
  // The ceilings of the configured GPU: cached ones, else measured now by the worker and cached.
  // Throws EngineError(Environment) without a GPU.
  protocol::MeasuredCeilings ceilings(bool remeasure, const CallContext& ctx = {});

  // Runs the verify-and-refine loop (a new run, or a stored one resumed) with the workspace's
  // store (.hone/hone.db) and returns the re-verified best proposal. Events arrive one at a time
  // on the calling thread and the loop's sample threads. Throws EngineError for bad input, a
  // broken environment, an unusable LLM configuration or an unknown run.
  protocol::OptimizeResult optimize(const OptimizeRequest& request, const CallContext& ctx = {},
                                    std::function<void(const protocol::OptimizeEvent&)> on_event = {});
  // The workspace's store file (.hone/hone.db).
  std::filesystem::path store_path() const;
  // The stored runs, most recent first (limit 0: all); none when the store does not exist yet.
  // Throws EngineError(Environment) when the store cannot be read. (`hone runs`)
  std::vector<protocol::RunListing> runs(int limit) const;
  // A stored run as trajectory lines (one JSON object per candidate: lineage, chat, source,
  // verdict, reward), the format RL and fine-tuning work reads. Throws EngineError(Usage) for an
  // unknown run or a workspace without a store. (`hone export`)
  std::vector<nlohmann::json> export_run(std::int64_t run_id) const;

  // The GPU spec table for `hone specs`: one GPU by name or key, this machine's GPU (its row
  // when nvidia-smi names one the table knows), or every row; with the ceilings measured on this
  // machine (cached, or measured now with `measure`). Throws EngineError(Usage) for an unknown
  // GPU name (naming the known keys), and what ceilings() throws when measuring.
  struct SpecsRequest {
    std::string gpu;       // a name or key; empty: this machine's GPU, else every row
    bool all = false;      // every row even when this machine has a GPU
    bool measure = false;  // measure this GPU's ceilings now and cache them
  };
  struct SpecRow {
    protocol::GpuSpec spec;
    bool local = false;  // the GPU in this machine
    std::optional<protocol::MeasuredCeilings> measured;
  };
  struct Specs {
    std::vector<SpecRow> rows;
    std::string local_gpu;       // this machine's GPU as nvidia-smi names it; empty: none seen
    bool local_unknown = false;  // it has one the table does not know (every row is shown)
  };
  Specs gpu_specs(const SpecsRequest& request, const CallContext& ctx = {});

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// `hone run-batch IN OUT`, what a Slurm job runs (engine/check_many.cpp): reads a batch file
// written by the Slurm executor (engine options and check requests), checks them on this node's
// pool and appends one JSON line per check to OUT as it finishes ({"id", "verdict" | "error",
// "job_id", "node"}). Throws EngineError for an unreadable batch. Returns the exit code.
int run_check_batch(const std::filesystem::path& in, const std::filesystem::path& out);

}  // namespace hone
