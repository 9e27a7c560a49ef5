// engine/optimize.cpp: Engine::optimize, the verify-and-refine loop wired to the engine: the
// target (kernel, task, signature, GPU facts), the proposer (a model or the built-in tuner), a
// verifier over Engine::check, and the workspace's store (.hone/hone.db); new runs and resumed ones.
#include <chrono>
#include <memory>

#include "engine/engine_impl.h"
#include "optimize/llm_proposer.h"
#include "optimize/prompt_context.h"
#include "optimize/tuner.h"
#include "profile/gpu_specs.h"
#include "store/run_store.h"
#include "support/hash.h"

namespace hone {
namespace {

using nlohmann::json;

// Candidates are checked as the kernel's own file with other contents, so its local headers and
// task pairing stay as they are; compiles of several samples overlap, the device's checks queue.
class EngineVerifier : public CandidateVerifier {
 public:
  EngineVerifier(Engine& engine, std::filesystem::path kernel, std::filesystem::path task, DeviceKind device,
                 int recheck_seeds)
      : engine_(engine), kernel_(std::move(kernel)), task_(std::move(task)), device_(device),
        recheck_seeds_(recheck_seeds) {}

  protocol::Verdict verify(const VerifyRequest& r, std::stop_token stop) override {
    CheckRequest req;
    req.kernel = {kernel_, r.source};
    req.task = task_;
    req.device = device_;
    req.extra_flags = r.extra_flags;
    if (r.recheck) req.seeds = recheck_seeds_;
    CallContext ctx;
    ctx.stop = stop;
    try {
      return engine_.check(req, ctx);
    } catch (const EngineError& e) {
      if (e.kind() == EngineError::Kind::Cancelled) throw VerifyError(VerifyError::Kind::Cancelled, e.what());
      throw VerifyError(VerifyError::Kind::Environment, e.what(), e.detail());
    }
  }

  std::optional<protocol::ProfileReport> profile(const VerifyRequest& r, std::stop_token stop) override {
    if (device_ != DeviceKind::Cuda) return std::nullopt;
    ProfileRequest req;
    req.kernel = {kernel_, r.source};
    req.task = task_;
    req.baseline = false;
    CallContext ctx;
    ctx.stop = stop;
    try {
      ProfileResult result = engine_.profile(req, ctx);
      if (!result.skipped.empty()) return std::nullopt;
      return std::move(result.verdict.profile);
    } catch (const EngineError& e) {
      if (e.kind() == EngineError::Kind::Cancelled) throw VerifyError(VerifyError::Kind::Cancelled, e.what());
      return std::nullopt;  // counters are a bonus for the prompt: the loop goes on without them
    }
  }

 private:
  Engine& engine_;
  std::filesystem::path kernel_, task_;
  DeviceKind device_;
  int recheck_seeds_;
};

std::string language_of(const std::filesystem::path& kernel) {
  auto ext = kernel.extension().string();
  return ext == ".cu" || ext == ".cuh" ? "cuda" : "cpp";
}

// What the configured GPU reports about itself (the first one when none has its index); nullopt
// when the worker reported no device it could describe.
std::optional<protocol::DeviceFacts> target_gpu(const WorkerEnvironment& env, int index) {
  if (!env.devices.is_array() || env.devices.empty()) return std::nullopt;
  json device = env.devices[0];
  for (const auto& d : env.devices)
    if (d.value("index", -1) == index) device = d;
  try {
    return device.get<protocol::DeviceFacts>();
  } catch (const std::exception&) {
    return std::nullopt;  // an incomplete hello: the prompt goes without GPU facts
  }
}

OptimizeOptions options_from_json(const json& j, OptimizeOptions o) {
  if (!j.is_object()) return o;
  o.samples = j.value("samples", o.samples);
  o.rounds = j.value("rounds", o.rounds);
  o.budget = std::chrono::seconds(j.value("budget_s", static_cast<long>(o.budget.count())));
  o.stop_at_speed_of_light = j.value("stop_at_speed_of_light", o.stop_at_speed_of_light);
  o.max_rechecks = j.value("max_rechecks", o.max_rechecks);
  if (j.contains("token_budget") && j["token_budget"].is_number_integer()) o.token_budget = j["token_budget"].get<std::int64_t>();
  return o;
}

}  // namespace

std::filesystem::path Engine::store_path() const { return RunStore::default_path(impl_->workspace); }

OptimizeResult Engine::optimize(const OptimizeRequest& request, const CallContext& ctx,
                                std::function<void(const OptimizeEvent&)> on_event) {
  Impl& impl = *impl_;
  // Opened once the request is known to be good (a resumed run's settings live in it).
  std::unique_ptr<RunStore> store;
  auto open_store = [&] {
    try {
      store = std::make_unique<RunStore>(store_path());
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Environment, e.what());
    }
  };

  OptimizeTarget target;
  OptimizeOptions options = request.options;
  std::optional<LlmConfig> llm = request.llm;
  std::optional<std::filesystem::path> prompts_dir = request.prompts_dir;
  int parents = request.parents;
  bool tune_flags = request.tune_flags;
  std::string hint = request.hint;
  std::optional<RunRecord> resumed;
  if (request.resume_run) {
    open_store();
    resumed = store->run(*request.resume_run);
    if (!resumed)
      throw EngineError(EngineError::Kind::Usage, "no run " + std::to_string(*request.resume_run) + " in " +
                                                      store_path().string() + " (`hone runs` lists them)");
    const json& cfg = resumed->config;
    target.kernel_path = resumed->kernel_path;
    target.base_source = resumed->base_source;
    target.task_path = resumed->task_path;
    target.device = resumed->device;
    options = options_from_json(cfg.value("options", json::object()), options);
    if (request.resume_rounds) options.rounds = *request.resume_rounds;
    double budget_s = cfg.value("options", json::object()).value("budget_s", 900.0);
    auto left = std::chrono::seconds(static_cast<long>(budget_s - resumed->elapsed_s));
    options.budget = request.budget.value_or(left);
    if (options.budget.count() <= 0)
      throw EngineError(EngineError::Kind::Usage, "run " + std::to_string(resumed->id) +
                                                      " has used its whole budget; give --budget to continue it");
    llm.reset();
    if (resumed->proposer == "llm") {
      llm = LlmConfig::from_description(cfg.value("llm", json::object()));
      llm->api_key = llm_api_key_from_environment();
    }
    if (cfg.contains("prompts_dir") && cfg["prompts_dir"].is_string()) prompts_dir = cfg["prompts_dir"].get<std::string>();
    parents = cfg.value("parents", parents);
    tune_flags = cfg.value("tune_flags", tune_flags);
    if (hint.empty() && cfg.contains("hint") && cfg["hint"].is_string()) hint = cfg["hint"].get<std::string>();
  } else {
    target.kernel_path = impl.absolute(request.kernel);
    try {
      target.base_source = request.contents ? *request.contents : read_file(target.kernel_path);
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Usage, std::string("kernel: ") + e.what());
    }
    target.task_path = request.task ? impl.absolute(*request.task)
                                    : find_task(KernelSource{target.kernel_path, target.base_source});
    auto requested = parse_device_kind(request.device);
    if (!requested) throw EngineError(EngineError::Kind::Usage, "unknown device " + request.device + " (auto, cpu or cuda)");
    DeviceKind kind = resolve_device(KernelSource{target.kernel_path, target.base_source}, *requested, ctx);
    target.device = kind == DeviceKind::Cuda ? "cuda" : "cpu";
    if (request.budget) options.budget = *request.budget;
  }
  target.language = language_of(target.kernel_path);
  target.hint = hint;
  const DeviceKind device = target.device == "cuda" ? DeviceKind::Cuda : DeviceKind::Cpu;
  try {
    target.task_source = read_file(target.task_path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, std::string("task: ") + e.what());
  }
  TaskInfo info = task_info(target.task_path, device, ctx);
  target.task_name = info.name;
  target.signature = info.signature;
  if (device == DeviceKind::Cuda) {
    target.gpu = target_gpu(environment(device, ctx), impl.options.gpu_index);
    if (target.gpu) target.gpu_spec = profile::find_gpu_spec(target.gpu->name);
  }

  std::unique_ptr<LlmClient> client;
  std::unique_ptr<Proposer> proposer;
  std::vector<std::string> notes;
  auto notify = [&on_event](const std::string& message) {
    if (!on_event) return;
    OptimizeEvent e;
    e.kind = OptimizeEvent::Kind::Note;
    e.message = message;
    on_event(e);
  };
  if (llm) {
    std::filesystem::path dir;
    try {
      client = std::make_unique<LlmClient>(*llm);
      dir = prompts_dir ? impl.absolute(*prompts_dir) : PromptTemplates::default_dir();
      proposer = std::make_unique<LlmProposer>(target, *client, PromptTemplates::load(dir), parents, notify);
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Usage, e.what());
    }
  } else {
    TunerSpace space = tuner_space(target.base_source, target.language, tune_flags);
    for (const auto& err : space.errors) notes.push_back(target.kernel_path.filename().string() + ": " + err);
    if (space.knobs.empty())
      notes.push_back("no `// hone: tune NAME=v1,v2,...` knobs in " + target.kernel_path.filename().string() +
                      ": the tuner tries compiler flags only (give --llm-url and --llm-model to let a model rewrite it)");
    proposer = std::make_unique<TunerProposer>(target.base_source, std::move(space));
    if (!hint.empty()) notes.push_back("the built-in tuner does not read hints; the hint is kept with the run for a model");
  }
  for (const auto& n : notes) notify(n);

  if (!store) open_store();
  EngineVerifier verifier(*this, target.kernel_path, target.task_path, device,
                          std::max(2 * impl.options.seeds, 6));
  // The model gets counters, roofline and suggestions for the kernels it refines (GPU only).
  if (llm && device == DeviceKind::Cuda) options.profile_parents = parents;
  Optimizer optimizer(*store, verifier, *proposer, target, options);
  try {
    if (resumed) return optimizer.resume(resumed->id, ctx.stop, on_event);
    json config = {{"options", options.to_json()},
                   {"proposer", proposer->origin()},
                   {"parents", parents},
                   {"tune_flags", tune_flags},
                   {"language", target.language}};
    if (llm) config["llm"] = llm->describe();
    if (!hint.empty()) config["hint"] = hint;
    if (prompts_dir) config["prompts_dir"] = impl.absolute(*prompts_dir).string();
    return optimizer.run(config, ctx.stop, on_event);
  } catch (const EngineError&) {
    throw;
  } catch (const std::exception& e) {
    // The store failed under the loop (a full disk, a file removed): nothing more can be recorded.
    throw EngineError(EngineError::Kind::Environment, std::string("optimizer: ") + e.what());
  }
}

}  // namespace hone
