// engine/optimize.cpp: Engine::optimize, the verify-and-refine loop wired to the engine: the
// run's plan (a new run's target and settings, or a stored run's), the proposer (a model or the
// built-in tuner), a verifier over Engine::check and Engine::profile, and the workspace's store
// (.hone/hone.db).
#include <atomic>
#include <chrono>
#include <memory>

#include "engine/engine_impl.h"
#include "optimize/llm_proposer.h"
#include "optimize/optimizer.h"
#include "optimize/tuner.h"
#include "profile/gpu_specs.h"
#include "store/run_store.h"
#include "support/hash.h"
#include "toolchain/flag_directive.h"
#include "toolchain/kernel_source.h"

namespace hone {
namespace {

using nlohmann::json;

// Candidates are checked as the kernel's own file with other contents, so its local headers and
// task pairing stay as they are; compiles of several samples overlap, the device's checks queue.
class EngineVerifier : public CandidateVerifier {
 public:
  EngineVerifier(Engine& engine, std::filesystem::path kernel, std::filesystem::path task, Device device,
                 int recheck_seeds)
      : engine_(engine), kernel_(std::move(kernel)), task_(std::move(task)), device_(device),
        recheck_seeds_(recheck_seeds) {}

  protocol::Verdict verify(const VerifyRequest& r, std::stop_token stop) override {
    CheckRequest req;
    req.kernel = {kernel_, r.source};
    req.task = task_;
    req.device = device_.kind();
    req.extra_flags = r.extra_flags;
    if (r.recheck) req.seeds = recheck_seeds_;
    req.remeasure_noisy_baselines = r.recheck || !first_done_.exchange(true);
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
    if (!device_.is_cuda()) return std::nullopt;
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
  Device device_;
  int recheck_seeds_;
  std::atomic<bool> first_done_{false};  // the first verify (the original kernel) may re-measure baselines
};

// A front end's model settings as the LLM client's configuration, with the key from the environment.
LlmConfig llm_config(const ModelSettings& m) {
  LlmConfig c;
  c.url = m.url;
  c.model = m.model;
  c.api_key = llm_api_key_from_environment();
  c.temperature = m.temperature;
  c.max_tokens = m.max_tokens;
  if (m.max_concurrency) c.max_concurrency = *m.max_concurrency;
  if (m.request_timeout) c.request_timeout = *m.request_timeout;
  c.prices.input_per_mtok = m.price_input_per_mtok;
  c.prices.output_per_mtok = m.price_output_per_mtok;
  return c;
}

// What one optimize call runs: the target and the settings of a new run, or of a stored one.
struct RunPlan {
  OptimizeTarget target;
  OptimizeOptions options;
  std::optional<LlmConfig> llm;
  std::optional<std::filesystem::path> prompts_dir;
  int parents = 2;
  bool tune_flags = true;
  std::optional<RunRecord> resumed;
};

RunPlan plan_from_request(const OptimizeRequest& request) {
  RunPlan plan;
  plan.options = request.options;
  if (request.model) plan.llm = llm_config(*request.model);
  plan.prompts_dir = request.prompts_dir;
  plan.parents = request.parents;
  plan.tune_flags = request.tune_flags;
  plan.target.hint = request.hint;
  if (request.budget) plan.options.budget = *request.budget;
  return plan;
}

// A stored run's plan: its kernel, task, device and settings, this session's budget and rounds.
RunPlan plan_resumed(const OptimizeRequest& request, RunRecord run, Device gpu) {
  RunPlan plan = plan_from_request(request);
  const json& cfg = run.config;
  plan.target.kernel_path = run.kernel_path;
  plan.target.base_source = run.base_source;
  plan.target.task_path = run.task_path;
  plan.target.device = parse_device_kind(run.device) == DeviceKind::Cuda ? gpu : Device::cpu();
  cfg.value("options", json::object()).get_to(plan.options);
  if (request.resume_rounds) plan.options.rounds = *request.resume_rounds;
  const double budget_s = cfg.value("options", json::object()).value("budget_s", 900.0);
  plan.options.budget = request.budget.value_or(std::chrono::seconds(static_cast<long>(budget_s - run.elapsed_s)));
  if (plan.options.budget.count() <= 0)
    throw EngineError(EngineError::Kind::Usage,
                      "run " + std::to_string(run.id) + " has used its whole budget; give --budget to continue it");
  plan.llm.reset();
  if (run.proposer == "llm") {
    plan.llm = LlmConfig::from_description(cfg.value("llm", json::object()));
    plan.llm->api_key = llm_api_key_from_environment();
  }
  if (cfg.contains("prompts_dir") && cfg["prompts_dir"].is_string()) plan.prompts_dir = cfg["prompts_dir"].get<std::string>();
  plan.parents = cfg.value("parents", plan.parents);
  plan.tune_flags = cfg.value("tune_flags", plan.tune_flags);
  if (plan.target.hint.empty() && cfg.contains("hint") && cfg["hint"].is_string()) plan.target.hint = cfg["hint"].get<std::string>();
  plan.resumed = std::move(run);
  return plan;
}

// The run's config as the store keeps it (never a secret: the LLM's description has no key).
json run_config(const RunPlan& plan, const Proposer& proposer) {
  json config = {{"options", plan.options},
                 {"proposer", proposer.origin()},
                 {"parents", plan.parents},
                 {"tune_flags", plan.tune_flags},
                 {"language", plan.target.language}};
  if (plan.llm) config["llm"] = plan.llm->describe();
  if (!plan.target.hint.empty()) config["hint"] = plan.target.hint;
  if (plan.prompts_dir) config["prompts_dir"] = plan.prompts_dir->string();
  return config;
}

// What the configured GPU reports about itself (the first one when none has its index).
std::optional<protocol::DeviceFacts> target_gpu(const WorkerEnvironment& env, int index) {
  if (env.devices.empty()) return std::nullopt;
  for (const auto& d : env.devices)
    if (d.index == index) return d;
  return env.devices.front();
}

// A new run's target: the kernel, its task and the device it runs on.
OptimizeTarget new_target(Engine& engine, const Engine::Impl& impl, const OptimizeRequest& request, const CallContext& ctx) {
  OptimizeTarget target;
  target.kernel_path = impl.absolute(request.kernel);
  try {
    target.base_source = request.contents ? *request.contents : read_file(target.kernel_path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, std::string("kernel: ") + e.what());
  }
  const KernelSource kernel{target.kernel_path, target.base_source};
  target.task_path = request.task ? impl.absolute(*request.task) : engine.find_task(kernel);
  auto requested = parse_device_kind(request.device);
  if (!requested) throw EngineError(EngineError::Kind::Usage, "unknown device " + request.device + " (auto, cpu or cuda)");
  target.device = engine.resolve_device(kernel, *requested, ctx);
  target.hint = request.hint;
  return target;
}

// What every run's target needs besides its kernel, task and device: the language, the task's
// source, name and signature, and the GPU's facts for the prompts.
void complete_target(Engine& engine, OptimizeTarget& target, const CallContext& ctx) {
  auto language = toolchain::language_for_path(target.kernel_path);
  target.language = is_answer_file(target.kernel_path) ? "python"  // a KernelBench answer: proposals are whole .py files
                    : language                         ? std::string(toolchain::to_string(*language))
                                                       : "cpp";
  try {
    target.task_source = read_file(target.task_path);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Kind::Usage, std::string("task: ") + e.what());
  }
  TaskInfo info = engine.task_info(target.task_path, target.device.kind(), ctx);
  target.task_name = info.name;
  target.signature = info.signature;
  if (target.device.is_cuda()) {
    target.gpu = target_gpu(engine.environment(target.device.kind(), ctx), target.device.index());
    if (target.gpu) target.gpu_spec = profile::find_gpu_spec(target.gpu->name);
  }
}

// The proposer of a run: a model (its client in `client`), or the built-in tuner over the kernel's
// declared knobs; notes for the user go to `notify`.
std::unique_ptr<Proposer> make_proposer(const RunPlan& plan, std::unique_ptr<LlmClient>& client,
                                        const std::function<void(const std::string&)>& notify) {
  const OptimizeTarget& target = plan.target;
  if (plan.llm) {
    try {
      client = std::make_unique<LlmClient>(*plan.llm);
      std::filesystem::path dir = plan.prompts_dir ? *plan.prompts_dir : PromptTemplates::default_dir();
      return std::make_unique<LlmProposer>(target, *client, PromptTemplates::load(dir), plan.parents, notify);
    } catch (const std::exception& e) {
      throw EngineError(EngineError::Kind::Usage, e.what());
    }
  }
  TunerSpace space = tuner_space(target.base_source, target.language, plan.tune_flags);
  const std::string name = target.kernel_path.filename().string();
  for (const auto& err : space.errors) notify(name + ": " + err);
  if (space.knobs.empty())
    notify("no `// hone: tune NAME=v1,v2,...` knobs in " + name +
           ": the tuner tries compiler flags only (give --llm-url and --llm-model to let a model rewrite it)");
  if (!target.hint.empty()) notify("the built-in tuner does not read hints; the hint is kept with the run for a model");
  // A configuration's flags go into its text (`// hone: flags=`): what is verified is what applies.
  return std::make_unique<TunerProposer>(target.base_source, std::move(space), toolchain::add_flag_directive);
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
  RunPlan plan;
  if (request.resume_run) {
    open_store();
    std::optional<RunRecord> run = store->run(*request.resume_run);
    if (!run)
      throw EngineError(EngineError::Kind::Usage, "no run " + std::to_string(*request.resume_run) + " in " +
                                                      store_path().string() + " (`hone runs` lists them)");
    plan = plan_resumed(request, std::move(*run), impl.gpu());
  } else {
    plan = plan_from_request(request);
    plan.target = new_target(*this, impl, request, ctx);
  }
  if (plan.prompts_dir) plan.prompts_dir = impl.absolute(*plan.prompts_dir);
  complete_target(*this, plan.target, ctx);
  const Device device = plan.target.device;

  auto notify = [&on_event](const std::string& message) {
    if (!on_event) return;
    OptimizeEvent e;
    e.kind = OptimizeEvent::Kind::Note;
    e.message = message;
    on_event(e);
  };
  std::unique_ptr<LlmClient> client;
  std::unique_ptr<Proposer> proposer = make_proposer(plan, client, notify);

  if (!store) open_store();
  EngineVerifier verifier(*this, plan.target.kernel_path, plan.target.task_path, device, std::max(2 * impl.options.seeds, 6));
  // The model gets counters, roofline and suggestions for the kernels it refines (GPU only).
  if (plan.llm && device.is_cuda()) plan.options.profile_parents = plan.parents;
  Optimizer optimizer(*store, verifier, *proposer, plan.target, plan.options);
  try {
    if (plan.resumed) return optimizer.resume(plan.resumed->id, ctx.stop, on_event);
    return optimizer.run(run_config(plan, *proposer), ctx.stop, on_event);
  } catch (const EngineError&) {
    throw;
  } catch (const std::exception& e) {
    // The store failed under the loop (a full disk, a file removed): nothing more can be recorded.
    throw EngineError(EngineError::Kind::Environment, std::string("optimizer: ") + e.what());
  }
}

}  // namespace hone
