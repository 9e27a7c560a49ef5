// optimize/proposer.h: where candidates come from. A Proposer plans each round on the loop's
// thread (plan_round) and turns each planned request into a candidate on a sample thread
// (propose, thread-safe). Two exist: LlmProposer (a model refines the best verified kernels with
// their feedback) and TunerProposer (the built-in search over declared knobs and flags).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "optimize/chat_types.h"
#include "store/run_store.h"

namespace hone {

// The run so far, as the loop keeps it (every candidate with its outcome, in order).
struct SearchState {
  const std::vector<CandidateRecord>* candidates = nullptr;
  std::optional<std::int64_t> baseline_id;

  // Verified-correct, timed candidates, fastest first.
  std::vector<const CandidateRecord*> ranked_correct() const;
  const CandidateRecord* find(std::int64_t id) const;
};

// The time speedups divide (device time where there is one), when the verdict has a timing.
std::optional<protocol::TimeSummary> time_of(const std::optional<protocol::Verdict>& verdict);
// The original kernel's time, when it is correct and timed.
std::optional<protocol::TimeSummary> original_time(const CandidateRecord* original);
// The original kernel's time over a candidate's (protocol::divide_times): `point` when both are
// quiet, else `range` from both sides' p10..p90; neither unless both are known.
void over_original(const std::optional<protocol::TimeSummary>& original,
                   const std::optional<protocol::TimeSummary>& candidate, std::optional<double>& point,
                   std::optional<protocol::SpeedupRange>& range);

// What one sample of a round should do.
struct ProposalRequest {
  int round = 0;
  int sample = 0;
  const CandidateRecord* parent = nullptr;  // the kernel to refine (owned by the loop's state)
  // A finished proposal the planner already made (the tuner's configurations).
  std::optional<std::string> source;
  std::vector<std::string> flags;
  nlohmann::json config = nlohmann::json::object();
};

struct Proposal {
  std::optional<std::string> source;  // nullopt: nothing to verify (see status)
  std::vector<std::string> flags;
  nlohmann::json config = nlohmann::json::object();
  std::vector<ChatMessage> prompt;
  std::string reply;
  std::string reasoning;
  CandidateUsage usage;
  double llm_seconds = 0;
  std::string status;  // when source is nullopt: no_code | wrong_signature | llm_error | cancelled
  std::string reason;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string origin() const = 0;  // "llm" | "tuner"
  // Loop thread, before each round: at most n requests; empty when nothing is left to try.
  virtual std::vector<ProposalRequest> plan_round(const SearchState& state, int round, int n) = 0;
  // A sample thread: the candidate for one request.
  virtual Proposal propose(const ProposalRequest& request, std::stop_token stop) = 0;
  // The configuration to record with the original kernel (the tuner's starting point).
  virtual nlohmann::json baseline_config() const { return nlohmann::json::object(); }
  // Extra facts for the run's summary (search space size, tokens...).
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

}  // namespace hone
