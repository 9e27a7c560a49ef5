// engine/engine_impl.h: the engine's private state and steps, shared by its source files
// (engine.cpp, check.cpp, check_build.cpp, profile.cpp, optimize.cpp, runs.cpp, specs.cpp):
// options, the sandbox, the interpreter, one worker slot per device, the baseline cache, and a
// check's prepared kernel. Front ends cannot include it (its lower layers are private to the
// engine); they include engine/engine.h.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/engine.h"
#include "eval/baseline_cache.h"
#include "eval/device_pool.h"
#include "eval/evaluator.h"
#include "eval/worker_slot.h"
#include "sandbox/sandbox.h"
#include "toolchain/task_constants.h"

namespace hone {

struct Engine::Impl {
  explicit Impl(EngineOptions options);
  ~Impl();  // stops the workers, removes their scratch folders

  EngineOptions options;
  std::filesystem::path workspace;  // absolute
  eval::BaselineCache baselines;

  // An absolute path for a user-given one (relative to the workspace).
  std::filesystem::path absolute(const std::filesystem::path& p) const;

  // The interpreter the workers run (found once). Throws EngineError(Environment).
  std::filesystem::path python();
  // The sandbox (detected once). Throws EngineError(Environment) when a forced mode is unusable.
  const sandbox::Sandbox& sandbox();

  // The GPU the options name: what "cuda" means.
  protocol::Device gpu() const { return protocol::Device::cuda(options.gpu_index); }
  // A request's kind of device as a device: the configured GPU, the CPU, or (Auto) the default.
  protocol::Device device_for(DeviceKind kind, const CallContext& ctx);
  // The worker slot of a device (created on first use; the worker starts on first call).
  eval::WorkerSlot& slot(protocol::Device device);
  // The slot called `key` ("cuda:1", "cpu", "cpu#2" for a fake GPU's judge) serving `device`.
  std::shared_ptr<eval::WorkerSlot> slot_for(const std::string& key, protocol::Device device);
  // The pool of the kind of `device` (gpu_pool.cpp): the selected GPUs, each with its own judge,
  // or the CPU's judge (several, named as GPUs, under $HONE_FAKE_GPUS). Built once.
  eval::DevicePool& pool(protocol::Device device, const CallContext& ctx);
  // Name, torch version and peak DRAM bandwidth of a pool member (its kind names it).
  eval::DeviceContext member_context(const eval::PoolMember& member, const CallContext& ctx);
  // The device for work that names none (task signatures, raw calls): the options' device, else
  // the GPU when the worker sees one, else the CPU (served by the same worker, which was asked).
  protocol::Device default_device(const CallContext& ctx);
  // Whether the eval worker sees a GPU: asks a worker already running when there is one, else
  // starts the GPU slot's worker (which then serves the CPU too when there is no GPU).
  bool gpu_visible(const CallContext& ctx);
  // The hello of the device's worker (starts it). Throws EngineError(Environment).
  nlohmann::json hello(protocol::Device device, const CallContext& ctx);
  // What a GPU reports about itself, from its worker's hello. Throws EngineError(Environment)
  // when the worker sees no GPU of that index.
  protocol::DeviceFacts gpu_facts(protocol::Device device, const CallContext& ctx);
  // Name, torch version and peak DRAM bandwidth of a device, from its worker's hello.
  eval::DeviceContext device_context(protocol::Device device, const CallContext& ctx);
  // A read-only copy of the task under the cache, named by its hash (the sandboxed worker sees
  // only that folder, and a candidate cannot change it).
  std::filesystem::path stage_task(const std::filesystem::path& task, const std::string& hash);
  // The compiler versions behind a build of this language ("cuda" | "cpp"), cached by the toolchain.
  protocol::ToolchainVersions toolchain_versions(const std::string& language) const;
  // Converts a worker progress notification into a Progress for the caller.
  eval::ProgressSink progress_sink(const CallContext& ctx) const;
  // One raw request to the device's worker, serialised with the checks (task signatures, the
  // profile and ceiling requests). Returns the reply's `result`; a worker-side error, death or
  // deadline throws EngineError with the evidence in detail().
  // The task's __init__ scalars for a kernel whose text names hone::task:: (the worker's
  // task_init, cached per task hash); empty for any other kernel or when no task is paired.
  std::vector<toolchain::TaskConstant> task_constants(Engine& engine, const KernelSource& kernel, const std::string& text,
                                                      const std::optional<std::filesystem::path>& task,
                                                      const CallContext& ctx);
  nlohmann::json call_worker(protocol::Device device, const std::string& method, const nlohmann::json& params,
                             std::chrono::seconds deadline, const CallContext& ctx);

 private:
  std::mutex mutex_;
  std::optional<std::filesystem::path> python_;
  std::optional<sandbox::Sandbox> sandbox_;
  std::map<std::string, std::shared_ptr<eval::WorkerSlot>> slots_;
  std::map<std::string, std::vector<toolchain::TaskConstant>> task_constants_;  // by task hash
  std::mutex pool_mutex_;  // builds the pools (may start a worker: not under mutex_)
  std::map<std::string, std::unique_ptr<eval::DevicePool>> pools_;  // "cpu" | "cuda"
};

// A kernel made ready for the judge (check.cpp): paired with its task, built, the task staged,
// the device resolved and its worker started. Every step of a check runs once, here; profile.cpp
// reuses it whole.
struct PreparedCheck {
  KernelSource kernel;                // absolute path, contents read
  std::filesystem::path task;         // the user's task file
  std::string task_hash;
  std::filesystem::path staged_task;  // the read-only copy the worker loads
  protocol::Device device = protocol::Device::cpu();
  eval::DeviceContext device_context;
  protocol::BuildReport build;
  std::string no_gpu;  // a .cu kernel that failed to build where the worker sees no GPU: why it could not run
  double prepare_seconds = 0;
  // A KernelBench answer (engine/answer.cpp): the judge's kernel fields beside library and form
  // (its load_inline builds), what the verdict says about it, and why it could not be imported.
  nlohmann::json kernel_extra = nlohmann::json::object();
  std::optional<protocol::AnswerFacts> answer;
  std::optional<std::string> answer_failure;
  std::string answer_traceback;
};

// check.cpp: the steps of a check. prepare_check pairs, builds (while the device's worker
// starts) and stages; judge_check runs the judge on a good build and assembles the verdict (a
// failed build is a compile_error verdict without a worker request).
PreparedCheck prepare_check(Engine& engine, Engine::Impl& impl, const CheckRequest& request, const CallContext& ctx);
// The device a verdict names and the context its judge measured with: a pool member's.
struct JudgedOn {
  protocol::Device device = protocol::Device::cpu();
  eval::DeviceContext context;
  std::optional<int> index;
  std::string uuid;
  std::vector<std::string> requeued;  // why the check left other members of the pool first
};
protocol::Verdict judge_check(Engine& engine, Engine::Impl& impl, const PreparedCheck& check, const CheckRequest& request,
                              const CallContext& ctx);

// answer.cpp: a KernelBench answer file (.py): recorded in a confined process, its load_inline
// calls built by the toolchain, the task staged and the device's worker started.
bool is_answer_file(const std::filesystem::path& path);
PreparedCheck prepare_answer_check(Engine& engine, Engine::Impl& impl, const CheckRequest& request, const CallContext& ctx);

// `text` with the staged copy's path replaced by the user's task path (messages, tracebacks and
// stderr lines name the file the user knows).
std::string unstage(std::string text, const std::string& staged, const std::string& original);

// Rethrows an eval-layer exception as the EngineError a front end expects (the current exception).
[[noreturn]] void rethrow_as_engine_error();

}  // namespace hone
