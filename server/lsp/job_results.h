// lsp/job_results.h: what hone's jobs leave behind, as structs spelled like
// protocol/schema/lsp.schema.json with to_json: a job's result (CheckOutcome, ProfileOutcome,
// OptimizeOutcome), an optimizer run as the editor sees it (OptimizeResult) and its verified
// proposals. Built on the jobs' threads, kept in the ResultStore, serialised on the way out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/verdict.h"

namespace hone::lsp {

struct Speedups {
  std::optional<double> eager;
  std::optional<double> compile;
  std::optional<double> kernel;  // the current kernel's time over the proposal's
  std::optional<protocol::SpeedupRange> kernel_range;  // in its place when either time was noisy
};

// A verified proposal: a run's winner re-verified on fresh seeds, or (rechecked false) the
// fastest candidate verified once when the run was stopped before its re-verification.
struct Proposal {
  std::int64_t id = 0;  // the candidate's id in the store
  std::int64_t run_id = 0;
  std::string text;     // the whole proposed kernel
  std::optional<protocol::Verdict> verdict;
  Speedups speedup;
  bool rechecked = true;
};

struct OptimizeResult {
  std::int64_t run_id = 0;
  std::string status;       // finished | interrupted | failed
  std::string stop_reason;
  int candidates = 0;
  int rounds = 0;
  double elapsed_s = 0;
  std::vector<Proposal> proposals;  // this kernel's proposals from every run since it was opened
  std::optional<std::int64_t> best;  // the id of this run's proposal, when it has one
  std::string summary;
  std::string error;
  std::optional<double> baseline_p50_us;  // the starting kernel's verified time, when it was correct
  std::map<std::string, int> counts;      // the run's candidates by status

  const Proposal* find(std::optional<std::int64_t> id) const;  // nullopt: the best
};

// A job's `result`: the summary (the renderer's words) and what the job produced.
struct JobResult {
  std::string summary;
  std::optional<protocol::Verdict> verdict;  // check and profile
  std::optional<std::string> plot;           // profile: the SVG written
  std::string skipped;                       // profile: why the kernel was not profiled
  std::optional<OptimizeResult> optimize;    // optimize
};

void to_json(nlohmann::json& j, const Speedups& v);
void to_json(nlohmann::json& j, const Proposal& v);
void to_json(nlohmann::json& j, const OptimizeResult& v);
void to_json(nlohmann::json& j, const JobResult& v);

}  // namespace hone::lsp
