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
#include "protocol/optimize_result.h"
#include "store/run_store.h"

namespace hone {

using protocol::CandidateSummary;
using protocol::OptimizeEvent;
using protocol::OptimizeOptions;
using protocol::OptimizeResult;

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
  // The original kernel (stored first on a new run) and candidates a crash or Ctrl-C left pending.
  void verify_pending(const RunRecord& run, std::stop_token stop);
  // Rounds from the run's next one until a stop condition; returns why they stopped.
  std::string run_rounds(RunRecord& run, std::stop_token stop);
  // The run's totals and the winner's numbers into the result and the store.
  void fill_result(RunRecord& run, OptimizeResult& result);
  void finalize(OptimizeResult& result, std::stop_token external);
  // The original kernel's time a winner must beat by its median (nullopt: none, the original is
  // not correct or not timed); timed once more when its first timing was noisy, the lower of the two.
  std::optional<protocol::TimeSummary> original_time_to_beat(std::stop_token external);
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
