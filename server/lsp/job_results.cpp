// lsp/job_results.cpp: the jobs' results as lsp.schema.json spells them.
#include "lsp/job_results.h"

namespace hone::lsp {

using nlohmann::json;

const Proposal* OptimizeResult::find(std::optional<std::int64_t> id) const {
  std::optional<std::int64_t> wanted = id ? id : best;
  for (const Proposal& p : proposals)
    if (!wanted || p.id == *wanted) return &p;
  return nullptr;
}

void to_json(json& j, const Speedups& v) {
  j = json::object();
  if (v.eager) j["eager"] = *v.eager;
  if (v.compile) j["compile"] = *v.compile;
  if (v.kernel) j["kernel"] = *v.kernel;
  if (v.kernel_range) j["kernelRange"] = *v.kernel_range;
}

void to_json(json& j, const Proposal& v) {
  j = json{{"id", v.id}, {"runId", v.run_id}, {"text", v.text}, {"speedup", v.speedup}, {"rechecked", v.rechecked}};
  j["verdict"] = v.verdict ? json(*v.verdict) : json();
}

void to_json(json& j, const OptimizeResult& v) {
  j = json{{"runId", v.run_id},           {"status", v.status},     {"stopReason", v.stop_reason},
           {"candidates", v.candidates},  {"rounds", v.rounds},     {"elapsedSeconds", v.elapsed_s},
           {"proposals", v.proposals},    {"summary", v.summary},   {"counts", v.counts}};
  j["best"] = v.best ? json(*v.best) : json();
  j["baselineP50Us"] = v.baseline_p50_us ? json(*v.baseline_p50_us) : json();
  if (!v.error.empty()) j["error"] = v.error;
}

void to_json(json& j, const JobResult& v) {
  j = json{{"summary", v.summary}};
  if (v.verdict) j["verdict"] = *v.verdict;
  if (v.plot) j["plot"] = *v.plot;
  if (!v.skipped.empty()) j["skipped"] = v.skipped;
  if (v.optimize) j["optimize"] = *v.optimize;
}

}  // namespace hone::lsp
