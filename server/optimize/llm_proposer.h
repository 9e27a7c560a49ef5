// optimize/llm_proposer.h: the proposer that asks a model. Each round it picks the best verified
// candidates as parents (or, while none is correct, the latest failures to fix, else the
// original kernel), and each sample sends the parent with its verdict, the task, the GPU's facts
// and the history of attempts through the prompt templates; the reply's kernel is extracted and
// its reasoning kept. plan_round runs on the loop's thread; propose on sample threads.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "optimize/llm_client.h"
#include "optimize/optimize_target.h"
#include "optimize/prompt_context.h"
#include "optimize/prompt_templates.h"
#include "optimize/proposer.h"

namespace hone {

class LlmProposer : public Proposer {
 public:
  // How many earlier attempts a prompt lists, most recent kept.
  static constexpr std::size_t kHistoryLimit = 12;

  // `parents`: how many of the best candidates each round refines. `on_retry` hears about LLM
  // retries (from sample threads).
  LlmProposer(const OptimizeTarget& target, LlmClient& client, PromptTemplates templates, int parents,
              std::function<void(const std::string&)> on_retry = {});

  std::string origin() const override { return "llm"; }
  std::vector<ProposalRequest> plan_round(const SearchState& state, int round, int n) override;
  Proposal propose(const ProposalRequest& request, std::stop_token stop) override;
  nlohmann::json describe() const override;

  // The messages a request would send (also used by tests).
  std::vector<ChatMessage> prompt_for(const ProposalRequest& request) const;

 private:
  const OptimizeTarget& target_;
  LlmClient& client_;
  PromptTemplates templates_;
  int parents_;
  std::function<void(const std::string&)> on_retry_;
  std::vector<AttemptSummary> history_;  // set by plan_round, read by propose during the round
};

}  // namespace hone
