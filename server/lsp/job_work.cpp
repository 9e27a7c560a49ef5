// lsp/job_work.cpp: engine requests for hone/check, hone/profile and hone/optimize.
#include "lsp/job_work.h"

#include "protocol/verdict_text.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

std::optional<std::string> check_type(const json& options, const char* key, bool (json::*is)() const noexcept,
                                      const char* expected) {
  if (options.contains(key) && !(options[key].*is)()) return std::string("'") + key + "' must be " + expected;
  return std::nullopt;
}

CheckRequest check_request(const JobInput& input) {
  const json& o = input.params.options;
  CheckRequest request;
  request.kernel = {input.doc.path, input.doc.text};
  if (input.params.task) request.task = std::filesystem::path(*input.params.task);
  if (o.contains("device")) request.device = *parse_device_kind(o["device"].get<std::string>());
  if (o.contains("seeds")) request.seeds = o["seeds"].get<int>();
  if (o.contains("atol")) request.atol = o["atol"].get<double>();
  if (o.contains("rtol")) request.rtol = o["rtol"].get<double>();
  if (o.contains("timing")) request.timing = o["timing"].get<bool>();
  if (o.contains("baselines")) request.baselines = o["baselines"].get<bool>();
  return request;
}

}  // namespace

std::optional<std::string> validate_job_options(const std::string&, const json& options) {
  if (!options.is_object()) return "options must be an object";
  if (auto e = check_type(options, "seeds", &json::is_number_integer, "an integer")) return e;
  if (options.contains("seeds") && options["seeds"].get<long long>() < 1) return "'seeds' must be at least 1";
  if (auto e = check_type(options, "atol", &json::is_number, "a number")) return e;
  if (auto e = check_type(options, "rtol", &json::is_number, "a number")) return e;
  if (auto e = check_type(options, "timing", &json::is_boolean, "true or false")) return e;
  if (auto e = check_type(options, "baselines", &json::is_boolean, "true or false")) return e;
  if (auto e = check_type(options, "device", &json::is_string, "\"auto\", \"cpu\" or \"cuda\"")) return e;
  if (options.contains("device") && !parse_device_kind(options["device"].get<std::string>())) {
    return "'device' must be \"auto\", \"cpu\" or \"cuda\"";
  }
  for (const char* key : {"samples", "rounds", "budgetSeconds", "tokenBudget"}) {
    if (auto e = check_type(options, key, &json::is_number_integer, "an integer")) return e;
    if (options.contains(key) && options[key].get<long long>() < 1) return std::string("'") + key + "' must be at least 1";
  }
  if (auto e = check_type(options, "tuner", &json::is_boolean, "true or false")) return e;
  if (auto e = check_type(options, "hint", &json::is_string, "a string")) return e;
  if (options.contains("metrics") && options["metrics"] != "default" && options["metrics"] != "full") {
    return "'metrics' must be \"default\" or \"full\"";
  }
  return std::nullopt;
}

protocol::Verdict run_check(const JobInput& input, const CallContext& ctx) {
  return input.engine.check(check_request(input), ctx);
}

ProfileResult run_profile(const JobInput& input, const CallContext& ctx) {
  ProfileRequest request;
  request.kernel = {input.doc.path, input.doc.text};
  if (input.params.task) request.task = std::filesystem::path(*input.params.task);
  request.metrics = input.params.options.value("metrics", std::string("default"));
  request.baseline = input.params.options.value("baselines", true);
  return input.engine.profile(request, ctx);
}

namespace {

// The engine's request for an optimize job: the document, its task and the job's options; a
// model when the settings name an endpoint and the job does not ask for the tuner.
OptimizeRequest optimize_request(const JobInput& input) {
  const json& o = input.params.options;
  OptimizeRequest request;
  request.kernel = input.doc.path;
  request.contents = input.doc.text;
  if (input.params.task) request.task = std::filesystem::path(*input.params.task);
  request.device = o.value("device", std::string("auto"));
  if (o.contains("samples")) request.options.samples = o["samples"].get<int>();
  if (o.contains("rounds")) request.options.rounds = o["rounds"].get<int>();
  if (o.contains("budgetSeconds")) request.budget = std::chrono::seconds(o["budgetSeconds"].get<int>());
  if (o.contains("tokenBudget")) request.options.token_budget = o["tokenBudget"].get<std::int64_t>();
  request.hint = o.value("hint", std::string());
  const json llm = input.settings.value("llm", json::object());
  std::string url = llm.is_object() ? llm.value("baseUrl", std::string()) : std::string();
  if (!url.empty() && !o.value("tuner", false)) {
    ModelSettings model;
    model.url = url;
    model.model = llm.value("model", std::string());
    request.model = model;
  }
  return request;
}

}  // namespace

OptimizeResult run_optimize(const JobInput& input, const CallContext& ctx, const std::optional<OptimizeResult>& previous) {
  OptimizeRequest request = optimize_request(input);
  // The best speedup shown only grows: a candidate that fails its re-verification later does not
  // take back what the status bar said it had reached (the final result is the verified truth).
  // On a busy machine the best may have only a range (issue 14): shown, as long as no point is,
  // by the range whose low end is highest so far.
  std::optional<double> best_shown;
  std::optional<protocol::SpeedupRange> best_range_shown;
  protocol::OptimizeResult result = input.engine.optimize(request, ctx, [&](const protocol::OptimizeEvent& e) {
    if (e.best_speedup_eager && (!best_shown || *e.best_speedup_eager > *best_shown)) best_shown = e.best_speedup_eager;
    if (const auto& r = e.best_speedup_eager_range; r && (!best_range_shown || r->low > best_range_shown->low))
      best_range_shown = r;
    if (best_shown) best_range_shown.reset();
    std::string message = "round " + std::to_string(e.round) + "/" + std::to_string(e.rounds);
    if (best_shown || best_range_shown) message += " · best " + protocol::format_speedup(best_shown, best_range_shown);
    message += " · " + std::to_string(e.candidates) + " candidates";
    json detail = {{"event", std::string(to_string(e.kind))}, {"round", e.round}, {"rounds", e.rounds},
                   {"candidates", e.candidates}, {"elapsedSeconds", e.elapsed_s}, {"note", e.message}};
    if (e.run_id > 0) detail["runId"] = e.run_id;
    if (best_shown) detail["bestSpeedupEager"] = *best_shown;
    if (best_range_shown) detail["bestSpeedupEagerRange"] = {{"low", best_range_shown->low}, {"high", best_range_shown->high}};
    if (e.best_p50_us) detail["bestP50Us"] = *e.best_p50_us;
    if (e.candidate_id > 0) detail["candidateId"] = e.candidate_id;
    if (!e.status.empty()) detail["status"] = e.status;
    if (e.p50_us) detail["p50Us"] = *e.p50_us;
    if (e.speedup_eager) detail["speedupEager"] = *e.speedup_eager;
    if (e.speedup_eager_range) detail["speedupEagerRange"] = {{"low", e.speedup_eager_range->low}, {"high", e.speedup_eager_range->high}};
    if (e.speedup_compile) detail["speedupCompile"] = *e.speedup_compile;
    if (e.speedup_vs_kernel) detail["speedupKernel"] = *e.speedup_vs_kernel;
    if (e.speedup_vs_kernel_range) detail["speedupKernelRange"] = *e.speedup_vs_kernel_range;
    input.report(message, detail);
  });

  OptimizeResult out;
  out.run_id = result.run_id;
  out.status = result.status;
  out.stop_reason = result.stop_reason;
  out.candidates = result.candidates;
  out.rounds = result.rounds_done;
  out.elapsed_s = result.elapsed_s;
  if (previous) out.proposals = previous->proposals;
  out.error = result.error;
  out.counts = result.counts;
  if (result.baseline && result.baseline->status == "correct") out.baseline_p50_us = result.baseline->p50_us;
  // The winner re-verified on fresh seeds; after a Stop, the fastest verified candidate so far.
  const protocol::CandidateSummary* best = result.best ? &*result.best : result.unconfirmed ? &*result.unconfirmed : nullptr;
  if (!best) {
    out.summary = "no faster verified proposal (" + result.stop_reason + ")";
    return out;
  }
  Proposal p;
  p.id = best->id;
  p.run_id = result.run_id;
  p.text = best->source;
  p.rechecked = result.best.has_value();
  p.verdict = p.rechecked && result.best_recheck ? result.best_recheck : best->verdict;
  p.speedup.eager = p.rechecked ? result.speedup_eager : best->speedup_eager;
  p.speedup.compile = p.rechecked ? result.speedup_compile : best->speedup_compile;
  p.speedup.kernel = p.rechecked ? result.speedup_vs_kernel : result.unconfirmed_vs_kernel;
  p.speedup.kernel_range = p.rechecked ? result.speedup_vs_kernel_range : result.unconfirmed_vs_kernel_range;
  out.best = p.id;
  out.summary = p.rechecked ? "best verified proposal " + std::to_string(p.id)
                            : "stopped: best verified proposal so far " + std::to_string(p.id);
  if (p.speedup.kernel) out.summary += ": " + protocol::format_number(*p.speedup.kernel) + "× the current kernel";
  else if (p.speedup.kernel_range)
    out.summary += ": " + protocol::format_speedup(std::nullopt, p.speedup.kernel_range) + " the current kernel (noisy)";
  if (!p.rechecked) out.summary += " (not re-verified on fresh seeds)";
  out.proposals.push_back(std::move(p));
  return out;
}

}  // namespace hone::lsp
