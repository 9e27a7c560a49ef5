// engine/engine.cpp: the Engine's construction, devices, worker slots, task signatures and raw
// worker calls (the check pipeline is in check.cpp, builds in check_build.cpp).
#include "engine/engine_impl.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "eval/worker_launch.h"
#include "profile/gpu_specs.h"
#include "support/hash.h"
#include "support/paths.h"
#include "toolchain/kernel_source.h"
#include "toolchain/task_pairing.h"
#include "toolchain/tools.h"
#include "toolchain/torch_env.h"

namespace hone {
namespace {

using nlohmann::json;

// The CPU's model name, for messages and the baseline cache key.
std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return "CPU " + line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "CPU";
}

std::uint64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

// Where this process's workers keep their scratch folders.
std::filesystem::path scratch_root() { return cache_dir() / "scratch" / std::to_string(::getpid()); }

// A file given by an environment variable, else `fallback` where it exists; empty: none.
std::filesystem::path configured_file(const char* variable, const std::filesystem::path& fallback) {
  if (const char* value = std::getenv(variable); value && *value) return value;
  std::error_code ec;
  return std::filesystem::exists(fallback, ec) ? fallback : std::filesystem::path();
}

// How the judge starts its candidate processes: hone-runner and the python runner, each slot
// confined (unless --no-sandbox) with its own scratch folder. A candidate process reads python's
// folders, hone's share and bin folders, the built candidates, the staged tasks and the CUDA
// toolkit's libraries; nothing else of the user's files.
eval::CandidateLaunch candidate_launch(const std::filesystem::path& py, const sandbox::Sandbox& box, bool gpu,
                                       const std::filesystem::path& scratch) {
  eval::CandidateLaunch launch;
  launch.python = py;
  launch.share_dir = share_dir();
  const std::filesystem::path bin = executable_path().parent_path();
  launch.runner = configured_file("HONE_RUNNER", bin / "hone-runner");
  launch.harness = configured_file("HONE_HARNESS_LIBRARY", launch.share_dir / "lib" / "libhone_harness.so");
  launch.scratch_root = scratch;
  if (box.mode() == sandbox::SandboxMode::none) {
    // Unconfined, a CPU candidate still gets a memory ceiling so a runaway allocation fails
    // instead of waking the OOM killer (CUDA needs an unbounded address space).
    launch.cpu_address_space_bytes = physical_memory_bytes();
    return launch;
  }
  std::filesystem::create_directories(cache_dir() / "build");
  std::filesystem::create_directories(cache_dir() / "tasks");
  std::vector<std::filesystem::path> readable = sandbox::python_read_paths(py);
  for (const auto& p : {launch.share_dir, cache_dir() / "build", cache_dir() / "tasks", bin}) readable.push_back(p);
  if (auto nvcc = toolchain::find_nvcc(); nvcc.tool) {
    const std::filesystem::path cuda = sandbox::compiler_root(nvcc.tool->path);
    std::error_code ec;
    for (const auto& lib : {cuda / "lib64", cuda / "extras" / "CUPTI" / "lib64"})
      if (std::filesystem::is_directory(lib, ec)) readable.push_back(lib);
  }
  if (!launch.runner.empty() && launch.runner.parent_path() != bin) readable.push_back(launch.runner.parent_path());
  if (!launch.harness.empty() && launch.harness.parent_path() != launch.share_dir / "lib")
    readable.push_back(launch.harness.parent_path());
  launch.wrap = [&box, readable, gpu](ProcessSpec spec, const std::filesystem::path& folder) {
    return box.wrap(spec, sandbox::run_policy(folder, readable, gpu));
  };
  launch.exit_code_carries_signal = true;
  return launch;
}

}  // namespace

std::string unstage(std::string text, const std::string& staged, const std::string& original) {
  for (std::size_t at = text.find(staged); at != std::string::npos; at = text.find(staged, at + original.size()))
    text.replace(at, staged.size(), original);
  return text;
}

void rethrow_as_engine_error() {
  try {
    throw;
  } catch (const EngineError&) {
    throw;
  } catch (const eval::Cancelled&) {
    throw EngineError(EngineError::Kind::Cancelled, "cancelled");
  } catch (const eval::TaskError& e) {
    throw EngineError(EngineError::Kind::Task, e.what(), e.traceback());
  } catch (const eval::WorkerStartError& e) {
    throw EngineError(EngineError::Kind::Environment, e.what(), e.detail());
  } catch (const eval::RequestRefused& e) {
    throw EngineError(EngineError::Kind::Usage, e.what(), e.traceback());
  } catch (const eval::WorkerFailure& e) {
    throw EngineError(EngineError::Kind::Internal, e.what(), e.detail());
  }
}

Engine::Impl::Impl(EngineOptions opts)
    : options(std::move(opts)),
      workspace(options.workspace.empty() ? std::filesystem::current_path() : std::filesystem::absolute(options.workspace)),
      baselines(cache_dir() / "baselines") {}

Engine::Impl::~Impl() {
  pools_.clear();
  slots_.clear();
  std::error_code ec;
  std::filesystem::remove_all(scratch_root(), ec);
}

bool Engine::Impl::gpu_visible(const CallContext& ctx) {
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, s] : slots_)
      if (auto h = s->known_hello()) return !h->value("devices", json::array()).empty();
  }
  json h = hello(gpu(), ctx);
  if (!h.value("devices", json::array()).empty()) return true;
  // No GPU: the worker just started serves the CPU too.
  std::lock_guard lock(mutex_);
  auto cuda = slots_.find(gpu().name());
  const std::string cpu = Device::cpu().name();
  if (cuda != slots_.end() && !slots_.count(cpu)) slots_[cpu] = cuda->second;
  return false;
}

Device Engine::Impl::default_device(const CallContext& ctx) {
  if (options.device != DeviceKind::Auto) return device_for(options.device, ctx);
  return gpu_visible(ctx) ? gpu() : Device::cpu();
}

Device Engine::Impl::device_for(DeviceKind kind, const CallContext& ctx) {
  switch (kind) {
    case DeviceKind::Cpu: return Device::cpu();
    case DeviceKind::Cuda: return gpu();
    case DeviceKind::Auto: break;
  }
  return default_device(ctx);
}

std::filesystem::path Engine::Impl::absolute(const std::filesystem::path& p) const {
  return (p.is_absolute() ? p : workspace / p).lexically_normal();
}

std::filesystem::path Engine::Impl::python() {
  std::lock_guard lock(mutex_);
  if (python_) return *python_;
  toolchain::TorchEnvLookup found = toolchain::find_torch_env(options.python);
  if (!found.env) throw EngineError(EngineError::Kind::Environment, found.error);
  python_ = found.env->python;
  return *python_;
}

const sandbox::Sandbox& Engine::Impl::sandbox() {
  std::lock_guard lock(mutex_);
  if (!sandbox_) {
    try {
      sandbox_.emplace(sandbox::Sandbox::create(sandbox::request_from_environment({!options.sandbox, {}, {}})));
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Environment, std::string("sandbox: ") + e.what());
    }
  }
  return *sandbox_;
}

eval::WorkerSlot& Engine::Impl::slot(Device target) { return *slot_for(target.name(), target); }

std::shared_ptr<eval::WorkerSlot> Engine::Impl::slot_for(const std::string& key, Device target) {
  const std::string device = target.name();
  // Found before the lock: both may throw and both lock.
  const std::filesystem::path py = python();
  const sandbox::Sandbox& box = sandbox();
  std::lock_guard lock(mutex_);
  auto& slot = slots_[key];
  if (slot) return slot;
  eval::WorkerSlotOptions so;
  so.device = target;
  so.start_timeout = options.worker_start_timeout;
  const bool gpu = target.is_cuda();
  std::string folder = key;
  for (char& ch : folder)
    if (ch == ':' || ch == '#') ch = '-';
  // The judge runs unconfined (it never loads candidate code; its environment is scrubbed); every
  // candidate process it starts is confined by its launch spec.
  so.make_spec = [py, &box, gpu, device, folder] {
    const std::filesystem::path root = scratch_root() / folder;
    eval::CandidateLaunch candidates = candidate_launch(py, box, gpu, root / "candidates");
    eval::WorkerLaunch launch;
    launch.python = py;
    launch.share_dir = share_dir();
    launch.scratch_dir = root / "judge";
    launch.extra_env = eval::write_candidate_launch(candidates, root / "candidates.json");
    launch.extra_env["HONE_JUDGE_DEVICE"] = device;
    return eval::worker_process_spec(launch);
  };
  slot = std::make_shared<eval::WorkerSlot>(std::move(so));
  return slot;
}

protocol::ToolchainVersions Engine::Impl::toolchain_versions(const std::string& language) const {
  protocol::ToolchainVersions v;
  if (language == "cuda") {
    if (auto nvcc = toolchain::find_nvcc(); nvcc.tool) v.nvcc = nvcc.tool->version;
  }
  if (auto cxx = toolchain::find_host_compiler(); cxx.tool) v.host_compiler = cxx.tool->version;
  return v;
}

eval::ProgressSink Engine::Impl::progress_sink(const CallContext& ctx) const {
  if (!ctx.progress) return nullptr;
  auto report = ctx.progress;
  return [report](const json& p) {
    report(Progress{p.value("stage", std::string()), p.value("message", std::string())});
  };
}

json Engine::Impl::hello(Device device, const CallContext& ctx) {
  try {
    return slot(device).hello(ctx.stop, progress_sink(ctx));
  } catch (...) {
    rethrow_as_engine_error();
  }
}

protocol::DeviceFacts Engine::Impl::gpu_facts(Device device, const CallContext& ctx) {
  const json devices = hello(device, ctx).value("devices", json::array());
  for (const json& d : devices) {
    if (d.value("index", -1) != device.index()) continue;
    try {
      return d.get<protocol::DeviceFacts>();
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Internal, std::string("the eval worker described GPU ") +
                                                         std::to_string(device.index()) + " badly: " + e.what(), d.dump());
    }
  }
  throw EngineError(EngineError::Kind::Environment, "the eval worker sees no GPU " + std::to_string(device.index()) + " (" +
                                                        std::to_string(devices.size()) + " visible)");
}

eval::DeviceContext Engine::Impl::device_context(Device device, const CallContext& ctx) {
  eval::DeviceContext dc;
  dc.torch_version = hello(device, ctx).value("torch", std::string());
  if (!device.is_cuda()) {
    dc.name = cpu_model_name();
    return dc;
  }
  protocol::DeviceFacts facts = gpu_facts(device, ctx);
  dc.name = facts.name;
  dc.peak_dram_bytes_per_s = profile::peak_dram_bytes_per_s(facts);  // nullopt: no floor
  return dc;
}

std::filesystem::path Engine::Impl::stage_task(const std::filesystem::path& task, const std::string& hash) {
  auto dir = cache_dir() / "tasks" / hash.substr(0, 32);
  auto staged = dir / task.filename();
  std::error_code ec;
  if (!std::filesystem::exists(staged, ec)) {
    std::filesystem::create_directories(dir);
    write_file_atomic(staged, read_file(task));
    // Readable by the sandbox user whatever hone's umask (as root, the worker runs as nobody).
    using std::filesystem::perms;
    std::filesystem::permissions(dir, perms::owner_all | perms::group_read | perms::group_exec | perms::others_read |
                                          perms::others_exec, ec);
    std::filesystem::permissions(staged, perms::owner_read | perms::owner_write | perms::group_read | perms::others_read,
                                 ec);
  }
  return staged;
}

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  if (impl_->options.seeds < 1) throw EngineError(EngineError::Kind::Usage, "seeds must be at least 1");
  if (impl_->options.gpu_index < 0) throw EngineError(EngineError::Kind::Usage, "the GPU index must be 0 or more");
}

Engine::~Engine() = default;

const EngineOptions& Engine::options() const { return impl_->options; }

std::filesystem::path Engine::find_task(const KernelSource& kernel) const {
  auto path = impl_->absolute(kernel.path);
  std::string text;
  if (kernel.contents) {
    text = *kernel.contents;
  } else {
    try {
      text = read_file(path);
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Usage, e.what());
    }
  }
  toolchain::TaskPairing pairing = toolchain::find_task_for_kernel(path, text);
  if (pairing.error) throw EngineError(EngineError::Kind::Usage, *pairing.error);
  if (!pairing.task) {
    std::string tried;
    for (const auto& t : pairing.tried) tried += "\n  " + t;
    throw EngineError(EngineError::Kind::Usage, "no task found for " + path.string() +
                                                    " (give --task, add a '// hone: task=PATH' line, or name it in hone.toml); tried:" + tried);
  }
  return *pairing.task;
}

Device Engine::resolve_device(const KernelSource& kernel, DeviceKind requested, const CallContext& ctx) {
  auto path = impl_->absolute(kernel.path);
  if (is_answer_file(path)) {  // a KernelBench answer: its own check settles the device from its sources
    const DeviceKind kind = requested != DeviceKind::Auto ? requested : impl_->options.device;
    if (kind == DeviceKind::Cpu) return Device::cpu();
    return impl_->default_device(ctx);
  }
  auto language = toolchain::language_for_path(path);
  if (!language) throw EngineError(EngineError::Kind::Usage, toolchain::unknown_extension_message(path));
  DeviceKind kind = requested == DeviceKind::Auto ? impl_->options.device : requested;
  const bool cuda_kernel = *language == toolchain::KernelLanguage::Cuda;
  if (kind == DeviceKind::Cpu && cuda_kernel)
    throw EngineError(EngineError::Kind::Usage, path.string() + " is a CUDA kernel (.cu): it runs on the GPU; "
                                                "check a .cpp kernel on the CPU device");
  if (kind == DeviceKind::Cuda && !cuda_kernel)
    throw EngineError(EngineError::Kind::Usage, path.string() + " is a C++ kernel (.cpp): it runs on the CPU device; "
                                                "write a .cu kernel for the GPU");
  if (!cuda_kernel) return Device::cpu();
  // A .cu kernel needs a GPU that the worker can see.
  if (!impl_->gpu_visible(ctx)) {
    json h = impl_->hello(Device::cpu(), ctx);
    throw EngineError(EngineError::Kind::NoGpu,
                      path.string() + " is a CUDA kernel, but the eval worker sees no GPU here (torch " +
                          h.value("torch", std::string("?")) + ", CUDA " +
                          (h.contains("torch_cuda") && h["torch_cuda"].is_string() ? h["torch_cuda"].get<std::string>() : std::string("none")) +
                          "); check a .cpp kernel on the CPU instead");
  }
  return impl_->gpu();
}

TaskInfo Engine::task_info(const std::filesystem::path& task, DeviceKind device, const CallContext& ctx) {
  auto path = impl_->absolute(task);
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, e.what());
  }
  const std::string hash = sha256_hex(text);
  const Device on = impl_->device_for(device, ctx);
  const std::string staged = impl_->stage_task(path, hash).string();
  json params{{"task", staged}, {"device", on.name()}};
  json result;
  try {
    result = impl_->call_worker(on, "task_info", params, impl_->options.check_timeout, ctx);
  } catch (const EngineError& e) {
    throw EngineError(e.kind(), unstage(e.what(), staged, path.string()), unstage(e.detail(), staged, path.string()));
  }
  TaskInfo info;
  info.path = path;
  info.hash = hash;
  info.name = result.value("name", path.stem().string());
  try {
    info.signature = eval::signature_from_worker(result);
  } catch (...) {
    rethrow_as_engine_error();
  }
  info.input_bytes = result.value("input_bytes", std::int64_t{0});
  info.output_bytes = result.value("output_bytes", std::int64_t{0});
  if (auto v = result.find("variability"); v != result.end() && v->is_object()) {
    info.weak = v->value("weak", false);
    info.max_abs_diff_across_seeds = v->value("max_abs_diff_across_seeds", 0.0);
  }
  if (auto init = result.find("init"); init != result.end() && init->is_array()) info.init = *init;
  return info;
}

protocol::ReferenceTiming Engine::time_reference(const std::filesystem::path& task, DeviceKind device,
                                                 const std::string& mode, const CallContext& ctx) {
  if (mode != "eager" && mode != "compile")
    throw EngineError(EngineError::Kind::Usage, "unknown timing mode '" + mode + "' (eager or compile)");
  auto path = impl_->absolute(task);
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, e.what());
  }
  eval::EvalRequest er;
  er.task_hash = sha256_hex(text);
  er.task = impl_->stage_task(path, er.task_hash);
  er.device = impl_->device_for(device, ctx);
  er.deadline = impl_->options.check_timeout;
  try {
    eval::DeviceContext dc = impl_->device_context(er.device, ctx);
    return eval::reference_timing(impl_->slot(er.device), impl_->baselines, er, dc, mode, ctx.stop,
                                  impl_->progress_sink(ctx));
  } catch (const eval::TaskError& e) {
    throw EngineError(EngineError::Kind::Task, unstage(e.what(), er.task.string(), path.string()),
                      unstage(e.traceback(), er.task.string(), path.string()));
  } catch (...) {
    rethrow_as_engine_error();
  }
}

WorkerEnvironment Engine::environment(DeviceKind device, const CallContext& ctx) {
  json h = impl_->hello(impl_->device_for(device, ctx), ctx);
  WorkerEnvironment env;
  env.python = h.value("python", std::string());
  env.executable = h.value("executable", std::string());
  env.torch = h.value("torch", std::string());
  if (h.contains("torch_cuda") && h["torch_cuda"].is_string()) env.torch_cuda = h["torch_cuda"].get<std::string>();
  for (const json& d : h.value("devices", json::array())) {
    try {
      env.devices.push_back(d.get<protocol::DeviceFacts>());
    } catch (const std::exception&) {
      // a device the worker could not describe is left out
    }
  }
  return env;
}

json Engine::Impl::call_worker(Device device, const std::string& method, const json& params,
                               std::chrono::seconds deadline, const CallContext& ctx) {
  eval::WorkerReply reply;
  try {
    reply = slot(device).call(method, params, deadline, ctx.stop, progress_sink(ctx));
    if (reply.kind == eval::WorkerReply::Kind::Error) eval::throw_worker_error(reply);
  } catch (...) {
    rethrow_as_engine_error();
  }
  std::string tail;
  for (const auto& l : reply.evidence.stderr_tail) tail += l + "\n";
  switch (reply.kind) {
    case eval::WorkerReply::Kind::Result: return reply.result;
    case eval::WorkerReply::Kind::Error: break;  // thrown above
    case eval::WorkerReply::Kind::Cancelled: throw EngineError(EngineError::Kind::Cancelled, "cancelled");
    case eval::WorkerReply::Kind::TimedOut:
      throw EngineError(EngineError::Kind::Environment,
                        "the eval worker gave no answer to " + method + " within " + std::to_string(deadline.count()) + " s",
                        tail);
    case eval::WorkerReply::Kind::Died:
      throw EngineError(EngineError::Kind::Environment,
                        "the eval worker died during " + method + " (" + eval::describe_exit(reply.evidence) + ")", tail);
  }
  throw EngineError(EngineError::Kind::Internal, "unreachable");
}

}  // namespace hone
