// optimize/chat_types.cpp: usage arithmetic, prices, and the <think> block splitter.
#include "optimize/chat_types.h"

namespace hone {

nlohmann::json to_json(const std::vector<ChatMessage>& messages) {
  auto out = nlohmann::json::array();
  for (const auto& m : messages) out.push_back({{"role", m.role}, {"content", m.content}});
  return out;
}

TokenUsage& TokenUsage::operator+=(const TokenUsage& o) {
  prompt_tokens += o.prompt_tokens;
  completion_tokens += o.completion_tokens;
  reasoning_tokens += o.reasoning_tokens;
  cached_prompt_tokens += o.cached_prompt_tokens;
  reported = reported || o.reported;
  return *this;
}

double LlmPrices::cost_usd(const TokenUsage& u) const {
  double cached_price = cached_input_per_mtok < 0 ? input_per_mtok : cached_input_per_mtok;
  double fresh = static_cast<double>(u.prompt_tokens - u.cached_prompt_tokens);
  return (fresh * input_per_mtok + static_cast<double>(u.cached_prompt_tokens) * cached_price +
          static_cast<double>(u.completion_tokens) * output_per_mtok) /
         1e6;
}

std::pair<std::string, std::string> split_think_block(const std::string& content) {
  static constexpr std::string_view kOpen = "<think>", kClose = "</think>";
  auto close = content.find(kClose);
  if (close == std::string::npos) return {"", content};
  std::size_t start = 0;
  auto open = content.find(kOpen);
  if (open != std::string::npos && open < close) {
    // Only whitespace may come before the opening tag for it to be the reasoning block.
    if (content.find_first_not_of(" \t\r\n") != open) return {"", content};
    start = open + kOpen.size();
  }
  std::string reasoning = content.substr(start, close - start);
  std::string answer = content.substr(close + kClose.size());
  auto trim = [](std::string& s) {
    auto b = s.find_first_not_of(" \t\r\n");
    auto e = s.find_last_not_of(" \t\r\n");
    s = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  trim(reasoning);
  trim(answer);
  return {reasoning, answer};
}

}  // namespace hone
