// protocol/optimize_result.cpp: JSON of the loop's options, its result and the run listings.
#include "protocol/optimize_result.h"

namespace hone::protocol {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(); }

json describe(const CandidateSummary& c) {
  return json{{"candidate", c.id},
              {"round", c.round},
              {"origin", c.origin},
              {"status", c.status},
              {"p50_us", optional_number(c.p50_us)},
              {"speedup", {{"eager", optional_number(c.speedup_eager)}, {"compile", optional_number(c.speedup_compile)}}}};
}

}  // namespace

std::string_view to_string(OptimizeEvent::Kind kind) {
  switch (kind) {
    case OptimizeEvent::Kind::RunStarted: return "run_started";
    case OptimizeEvent::Kind::RoundStarted: return "round_started";
    case OptimizeEvent::Kind::Proposed: return "proposed";
    case OptimizeEvent::Kind::Verified: return "verified";
    case OptimizeEvent::Kind::Note: return "note";
    case OptimizeEvent::Kind::Recheck: return "recheck";
    case OptimizeEvent::Kind::Finished: return "finished";
  }
  return "note";
}

void to_json(json& j, const OptimizeOptions& v) {
  j = json{{"samples", v.samples},
           {"rounds", v.rounds},
           {"budget_s", v.budget.count()},
           {"stop_at_speed_of_light", v.stop_at_speed_of_light},
           {"max_rechecks", v.max_rechecks},
           {"profile_parents", v.profile_parents}};
  j["token_budget"] = v.token_budget ? json(*v.token_budget) : json();
}

void from_json(const json& j, OptimizeOptions& v) {
  if (!j.is_object()) return;
  v.samples = j.value("samples", v.samples);
  v.rounds = j.value("rounds", v.rounds);
  v.budget = std::chrono::seconds(j.value("budget_s", static_cast<long>(v.budget.count())));
  v.stop_at_speed_of_light = j.value("stop_at_speed_of_light", v.stop_at_speed_of_light);
  v.max_rechecks = j.value("max_rechecks", v.max_rechecks);
  if (j.contains("token_budget") && j["token_budget"].is_number_integer()) v.token_budget = j["token_budget"].get<std::int64_t>();
}

void to_json(json& j, const OptimizeResult& v) {
  j = json{{"run_id", v.run_id},     {"status", v.status},         {"stop_reason", v.stop_reason},
           {"counts", v.counts},     {"candidates", v.candidates}, {"rounds", v.rounds_done},
           {"elapsed_s", v.elapsed_s}, {"diff", v.diff},           {"proposer", v.proposer}};
  j["tokens"] = {{"prompt", v.usage.prompt_tokens},
                 {"completion", v.usage.completion_tokens},
                 {"reasoning", v.usage.reasoning_tokens},
                 {"estimated", v.usage.estimated}};
  j["cost_usd"] = v.usage.cost_usd;
  if (!v.error.empty()) j["error"] = v.error;
  j["baseline"] = v.baseline ? describe(*v.baseline) : json();
  j["best"] = nullptr;
  if (v.best) {
    json b = describe(*v.best);
    b["status"] = "correct";
    b["p50_us"] = optional_number(v.best_p50_us);
    b["speedup"] = {{"eager", optional_number(v.speedup_eager)},
                    {"compile", optional_number(v.speedup_compile)},
                    {"kernel", optional_number(v.speedup_vs_kernel)}};
    if (v.speedup_vs_kernel_range) b["speedup"]["kernel_range"] = *v.speedup_vs_kernel_range;
    b["source"] = v.best->source;
    b["flags"] = v.best->flags;
    b["rechecked"] = true;
    b["recheck_verdict"] = v.best_recheck ? json(*v.best_recheck) : json();
    j["best"] = b;
  }
  if (v.unconfirmed) {
    json u = describe(*v.unconfirmed);
    u["speedup"]["kernel"] = optional_number(v.unconfirmed_vs_kernel);
    if (v.unconfirmed_vs_kernel_range) u["speedup"]["kernel_range"] = *v.unconfirmed_vs_kernel_range;
    u["source"] = v.unconfirmed->source;
    u["flags"] = v.unconfirmed->flags;
    u["rechecked"] = false;
    j["unconfirmed"] = u;
  }
}

void to_json(json& j, const RunListing& v) {
  j = json{{"id", v.id},
           {"kernel_path", v.kernel_path},
           {"task_path", v.task_path},
           {"device", v.device},
           {"proposer", v.proposer},
           {"status", v.status},
           {"error", v.error},
           {"created_at", v.created_at},
           {"updated_at", v.updated_at},
           {"elapsed_s", v.elapsed_s},
           {"rounds_done", v.rounds_done},
           {"best_candidate", v.best_candidate ? json(*v.best_candidate) : json()},
           {"summary", v.summary},
           {"config", v.config}};
}

}  // namespace hone::protocol
