// optimize/llm_proposer.cpp: parent selection, prompt assembly, the model call and extraction.
#include "optimize/llm_proposer.h"

#include <algorithm>
#include <chrono>

#include "optimize/code_extraction.h"

namespace hone {

LlmProposer::LlmProposer(const OptimizeTarget& target, LlmClient& client, PromptTemplates templates, int parents,
                         std::function<void(const std::string&)> on_retry)
    : target_(target),
      client_(client),
      templates_(std::move(templates)),
      parents_(std::max(parents, 1)),
      on_retry_(std::move(on_retry)) {}

std::vector<ProposalRequest> LlmProposer::plan_round(const SearchState& state, int round, int n) {
  std::vector<const CandidateRecord*> parents;
  for (const auto* c : state.ranked_correct()) {
    if (static_cast<int>(parents.size()) >= parents_) break;
    parents.push_back(c);
  }
  if (parents.empty()) {
    // Nothing correct yet: refine the latest verified failures (their verdicts say what to fix).
    for (auto it = state.candidates->rbegin(); it != state.candidates->rend(); ++it) {
      if (static_cast<int>(parents.size()) >= parents_) break;
      if (it->verdict && it->origin != "baseline") parents.push_back(&*it);
    }
    if (parents.empty() && state.baseline_id) parents.push_back(state.find(*state.baseline_id));
  }
  history_.clear();
  const auto& all = *state.candidates;
  std::size_t from = all.size() > kHistoryLimit ? all.size() - kHistoryLimit : 0;
  for (std::size_t i = from; i < all.size(); ++i) {
    const auto& c = all[i];
    std::optional<protocol::SpeedupRange> range = c.verdict && c.verdict->speedup ? c.verdict->speedup->eager_range : std::nullopt;
    history_.push_back({c.id, c.round, c.parent_id, c.status, c.p50_us, c.speedup_eager, c.reason, range});
  }
  std::vector<ProposalRequest> out;
  if (parents.empty() || !parents.front()) return out;
  for (int i = 0; i < n; ++i) {
    ProposalRequest r;
    r.round = round;
    r.sample = i;
    r.parent = parents[static_cast<std::size_t>(i) % parents.size()];
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ChatMessage> LlmProposer::prompt_for(const ProposalRequest& request) const {
  PromptInputs in;
  in.task_name = target_.task_name;
  in.task_path = target_.task_path.string();
  in.task_source = target_.task_source;
  in.device = target_.device;
  in.signature = target_.signature;
  in.kernel_path = target_.kernel_path.filename().string();
  in.kernel_source = request.parent ? request.parent->source : target_.base_source;
  if (request.parent) {
    in.verdict = request.parent->verdict;
    if (!in.verdict && !request.parent->reason.empty()) in.outcome = PromptOutcome{request.parent->status, request.parent->reason};
  }
  in.gpu = target_.gpu;
  in.gpu_spec = target_.gpu_spec;
  in.history = history_;
  in.round = request.round;
  in.hint = target_.hint;
  return templates_.render(prompt_context(in));
}

Proposal LlmProposer::propose(const ProposalRequest& request, std::stop_token stop) {
  Proposal p;
  p.config = {{"model", client_.config().model}};
  if (client_.config().temperature) p.config["temperature"] = *client_.config().temperature;
  p.prompt = prompt_for(request);
  LlmCallOptions opts;
  opts.stop = stop;
  if (on_retry_)
    opts.on_retry = [this](int attempt, std::chrono::milliseconds delay, const std::string& why) {
      on_retry_("LLM retry " + std::to_string(attempt) + " in " + std::to_string(delay.count()) + " ms: " + why);
    };
  auto start = std::chrono::steady_clock::now();
  ChatReply reply;
  try {
    reply = client_.complete(p.prompt, opts);
  } catch (const LlmError& e) {
    p.llm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.status = e.kind() == LlmError::Kind::Cancelled ? "cancelled" : "llm_error";
    p.reason = e.what();
    return p;
  }
  p.llm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  p.reply = reply.content;
  p.reasoning = reply.reasoning;
  p.usage = {reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.reasoning_tokens, reply.cost_usd,
             !reply.usage.reported};
  auto extraction = extract_kernel(reply.content, target_.language, target_.expected_signature());
  if (!extraction.source) {
    p.status = extraction.status;
    p.reason = extraction.reason;
    if (reply.finish_reason == "length") p.reason += " (the reply stopped at the token limit)";
    return p;
  }
  p.source = std::move(extraction.source);
  return p;
}

nlohmann::json LlmProposer::describe() const {
  auto t = client_.totals();
  return {{"llm", client_.config().describe()},
          {"requests", t.requests},
          {"failures", t.failures},
          {"retries", t.retries},
          {"prompt_tokens", t.usage.prompt_tokens},
          {"completion_tokens", t.usage.completion_tokens},
          {"reasoning_tokens", t.usage.reasoning_tokens},
          {"usage_reported", t.usage.reported},
          {"cost_usd", t.cost_usd}};
}

}  // namespace hone
