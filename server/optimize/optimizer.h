// optimize/optimizer.h: the verify-and-refine loop. N samples per round in parallel threads x K
// rounds under a wall-clock budget (and an optional token budget): a proposer (a model, or the
// built-in tuner) makes candidates, the verifier decides, every candidate and verdict goes to the
// store as it happens (so a crash or Ctrl-C loses no verified candidate and the run can be
// resumed). It stops early near speed-of-light, when the search is exhausted or the budget ends;
// the best verified candidate is re-verified on fresh seeds before it is reported. Only the
// verifier's "correct" can win. Called by the engine (engine/optimize.cpp) on the caller's
// thread; events arrive on the loop's and the sample threads, one at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "optimize/candidate_verifier.h"
#include "optimize/optimize_target.h"
#include "optimize/proposer.h"
#include "store/run_store.h"

namespace hone {

struct OptimizeOptions {
  int samples = 4;                              // candidates per round, made and verified in parallel
  int rounds = 8;                               // the last round of the run (a resumed run continues)
  std::chrono::seconds budget{900};             // wall clock for this session
  std::optional<std::int64_t> token_budget;     // prompt + completion tokens over the run
  double stop_at_speed_of_light = 0.9;          // stop when floor / time reaches this (GPU)
  int max_rechecks = 3;                         // candidates tried as winner before giving up
  int profile_parents = 0;                      // profile this many best candidates for the prompts

  nlohmann::json to_json() const;
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
  // Verified: the candidate's own measurement (median time, speedups over the reference's eager
  // and compiled baselines, the original kernel's time over its), when it has one.
  std::optional<double> p50_us;
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  std::optional<double> speedup_vs_kernel;
  int candidates = 0;   // made so far in this run (the original kernel not counted)
  int correct = 0;      // of which verified correct
  std::optional<double> best_p50_us;
  std::optional<double> best_speedup_eager;
  std::optional<double> best_vs_kernel;  // the original kernel's time / the best's
  double elapsed_s = 0;
};

std::string_view to_string(OptimizeEvent::Kind kind);

struct OptimizeResult {
  std::int64_t run_id = 0;
  std::string status;       // finished | interrupted | failed
  std::string stop_reason;  // rounds | budget | tokens | speed_of_light | exhausted | cancelled | error
  std::string error;        // for failed runs
  std::optional<CandidateRecord> baseline;  // the original kernel and its verdict
  std::optional<CandidateRecord> best;      // the re-verified winner; nullopt: nothing better
  std::optional<protocol::Verdict> best_recheck;  // the winner's re-verification verdict
  std::optional<double> best_p50_us;        // from the re-verification
  std::optional<double> speedup_eager;
  std::optional<double> speedup_compile;
  std::optional<double> speedup_vs_kernel;
  std::vector<std::string> best_flags;
  std::string diff;                         // unified diff original -> winner
  // An interrupted run (stopped before its winner was re-verified): the fastest candidate verified
  // correct and faster than the original, not re-verified on fresh seeds; its own measurement
  // is in its p50_us and speedup fields. nullopt when `best` is set or there is none.
  std::optional<CandidateRecord> unconfirmed;
  std::optional<double> unconfirmed_vs_kernel;  // the original kernel's time / the unconfirmed's
  std::map<std::string, int> counts;        // candidates by status (the original kernel not counted)
  int candidates = 0;
  int rounds_done = 0;
  double elapsed_s = 0;
  CandidateUsage usage;                     // summed over the run's candidates
  nlohmann::json proposer;                  // the proposer's description

  // {run_id, status, stop_reason, best: {status, speedup, source, ...} | null, baseline, counts, diff, ...}
  nlohmann::json to_json() const;
};

class Optimizer {
 public:
  using EventSink = std::function<void(const OptimizeEvent&)>;

  Optimizer(RunStore& store, CandidateVerifier& verifier, Proposer& proposer, const OptimizeTarget& target,
            OptimizeOptions options);

  // Records a new run (its config as given: never a secret) and runs it.
  OptimizeResult run(const nlohmann::json& run_config, std::stop_token stop, EventSink on_event = {});
  // Continues a stored run: its candidates count, pending ones are verified first, and rounds
  // go on from where it stopped under this session's budget.
  OptimizeResult resume(std::int64_t run_id, std::stop_token stop, EventSink on_event = {});

 private:
  OptimizeResult execute(RunRecord run, std::stop_token external);
  bool verify_candidate(CandidateRecord& c, std::stop_token stop);
  void run_round(int round, std::vector<ProposalRequest> requests, std::stop_token stop);
  void finalize(OptimizeResult& result, std::stop_token external);
  void keep_unconfirmed(OptimizeResult& result) const;
  void fill_measurement(OptimizeEvent& event, const CandidateRecord& c) const;
  void profile_best(std::stop_token stop);
  void emit(OptimizeEvent event);
  void save_progress(RunRecord& run);
  OptimizeEvent progress_event(OptimizeEvent::Kind kind) const;
  const CandidateRecord* baseline() const;
  std::map<std::string, int> counts() const;
  CandidateUsage usage() const;

  RunStore& store_;
  CandidateVerifier& verifier_;
  Proposer& proposer_;
  const OptimizeTarget& target_;
  OptimizeOptions options_;
  EventSink sink_;
  std::mutex event_mutex_;
  mutable std::mutex state_mutex_;
  std::vector<CandidateRecord> candidates_;  // the run's candidates; appended between rounds only
  std::int64_t run_id_ = 0;
  int round_ = 0;
  double elapsed_before_ = 0;
  std::chrono::steady_clock::time_point session_start_;
  int new_candidates_ = 0;  // made during the current round (for progress counts)
  std::vector<CandidateRecord> round_correct_;  // verified correct during the current round
  std::vector<std::int64_t> profiled_;          // candidates whose profile was asked for
};

}  // namespace hone
