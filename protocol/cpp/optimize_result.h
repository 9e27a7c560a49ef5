// protocol/optimize_result.h: the verify-and-refine loop's vocabulary as front ends see it: its
// options, the events it reports as it runs, its result (the re-verified winner, counts, tokens)
// and a stored run as `hone runs` lists it; to_json gives `hone optimize --json` and
// `hone runs --json`. Filled by hone_optimize (on the loop's and the sample threads), read by the
// CLI and the language server through the engine. Plain values.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/verdict.h"

namespace hone::protocol {

struct OptimizeOptions {
  int samples = 4;                              // candidates per round, made and verified in parallel
  int rounds = 8;                               // the last round of the run (a resumed run continues)
  std::chrono::seconds budget{900};             // wall clock for this session
  std::optional<std::int64_t> token_budget;     // prompt + completion tokens over the run
  double stop_at_speed_of_light = 0.9;          // stop when floor / time reaches this (GPU)
  int max_rechecks = 3;                         // candidates tried as winner before giving up
  int profile_parents = 0;                      // profile this many best candidates for the prompts
};

// Usage of one LLM call (or a run's sum) as the server reported it, or estimated when it did not.
struct CandidateUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  double cost_usd = 0;
  bool estimated = false;
};

struct OptimizeEvent {
  enum class Kind { RunStarted, RoundStarted, Proposed, Verified, Note, Recheck, Finished };
  Kind kind = Kind::Note;
  std::int64_t run_id = 0;
  int round = 0;
  int rounds = 0;
  std::int64_t candidate_id = 0;
  std::string status;   // the candidate's, for Proposed / Verified / Recheck
  std::string message;  // human text
  // Proposed / Verified: what the candidate tried, in words ("BLOCK=32, flags -march=native" for
  // the tuner, "the model's rewrite of #3" for a model, "as written" for the original kernel).
  std::string tried;
  // Verified: the candidate's own measurement (median time, speedups over the reference's eager
  // and compiled baselines, the original kernel's time over its), when it has one.
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  std::optional<double> speedup_vs_kernel;
  std::optional<SpeedupRange> speedup_eager_range;  // when a timing was noisy: no point, a range
  std::optional<SpeedupRange> speedup_vs_kernel_range;  // likewise, when its or the original's time was noisy
  int candidates = 0;   // made so far in this run (the original kernel not counted)
  int correct = 0;      // of which verified correct
  std::optional<double> best_p50_us;
  std::optional<double> best_speedup_eager;
  std::optional<SpeedupRange> best_speedup_eager_range;  // the best's, when it has no point
  std::optional<double> best_vs_kernel;  // the original kernel's time / the best's
  std::optional<SpeedupRange> best_vs_kernel_range;  // when either time was noisy: no point, a range
  double elapsed_s = 0;
};

std::string_view to_string(OptimizeEvent::Kind kind);

// One candidate of a run as a result names it.
struct CandidateSummary {
  std::int64_t id = 0;
  int round = 0;
  std::string origin;  // "baseline" | "llm" | "tuner"
  std::string status;  // a verdict status, or no_code | llm_error | cancelled | pending
  std::string reason;
  std::string source;  // the whole kernel
  std::vector<std::string> flags;  // the compiler flags it was built with (the tuner's)
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  std::optional<Verdict> verdict;  // nullopt when it never reached the verifier
};

struct OptimizeResult {
  std::int64_t run_id = 0;
  std::string status;       // finished | interrupted | failed
  std::string stop_reason;  // rounds | budget | tokens | speed_of_light | exhausted | cancelled | error
  std::string error;        // for failed runs
  std::optional<CandidateSummary> baseline;  // the original kernel and its verdict
  std::optional<CandidateSummary> best;      // the re-verified winner; nullopt: nothing better
  std::optional<Verdict> best_recheck;       // the winner's re-verification verdict
  std::optional<double> best_p50_us;         // from the re-verification
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  // The original kernel's time / the re-verified winner's: a point when both are quiet, else the
  // range from both sides' p10..p90 (protocol::divide_times).
  std::optional<double> speedup_vs_kernel;
  std::optional<SpeedupRange> speedup_vs_kernel_range;
  std::string diff;                          // unified diff original -> winner
  // An interrupted run (stopped before its winner was re-verified): the fastest candidate verified
  // correct and faster than the original, not re-verified on fresh seeds; its own measurement
  // is in its p50_us and speedup fields. nullopt when `best` is set or there is none.
  std::optional<CandidateSummary> unconfirmed;
  std::optional<double> unconfirmed_vs_kernel;  // the original kernel's time / the unconfirmed's
  std::optional<SpeedupRange> unconfirmed_vs_kernel_range;  // when either time was noisy: no point, a range
  std::map<std::string, int> counts;         // candidates by status (the original kernel not counted)
  int candidates = 0;
  int rounds_done = 0;
  double elapsed_s = 0;
  CandidateUsage usage;                      // summed over the run's candidates
  nlohmann::json proposer;                   // the proposer's own description (model, search space)
};

// A stored run as `hone runs` lists it: what it is, how far it got, its best result.
struct RunListing {
  std::int64_t id = 0;
  std::string kernel_path;
  std::string task_path;
  std::string device;    // "cpu" | "cuda"
  std::string proposer;  // "llm" | "tuner"
  std::string status;    // running | finished | interrupted | failed
  std::string error;
  std::string created_at;
  std::string updated_at;
  double elapsed_s = 0;
  int rounds_done = 0;
  std::optional<std::int64_t> best_candidate;
  int candidates = 0;                             // made so far (the original kernel not counted)
  std::optional<std::int64_t> winner;             // the re-verified winner
  std::optional<double> winner_vs_kernel;         // its re-verified speedup over the original kernel
  std::optional<SpeedupRange> winner_vs_kernel_range;  // in its place when a time was noisy
  std::optional<double> winner_speedup_eager;
  std::optional<SpeedupRange> winner_speedup_eager_range;  // in its place when a time was noisy
  std::optional<double> best_vs_kernel;           // the best verified so far (not re-verified)
  std::optional<SpeedupRange> best_vs_kernel_range;  // in its place when a time was noisy
  std::optional<double> best_speedup_eager;
  std::optional<SpeedupRange> best_speedup_eager_range;  // in its place when a time was noisy
  nlohmann::json summary = nlohmann::json::object();  // as the store keeps them, for --json
  nlohmann::json config = nlohmann::json::object();
};

// The options as a run's stored config keeps them; from_json keeps what `j` does not name.
void to_json(nlohmann::json& j, const OptimizeOptions& v);
void from_json(const nlohmann::json& j, OptimizeOptions& v);
// {run_id, status, stop_reason, best: {status, speedup, source, ...} | null, baseline, counts, diff, ...}
void to_json(nlohmann::json& j, const OptimizeResult& v);
void to_json(nlohmann::json& j, const RunListing& v);

}  // namespace hone::protocol
