// optimize/chat_types.h: the values that go into and come out of an OpenAI-compatible chat
// completion: messages, the reply (answer kept apart from reasoning), token usage and prices.
// Plain data, used by LlmClient, the prompt builder and the optimizer loop on any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hone {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

nlohmann::json to_json(const std::vector<ChatMessage>& messages);

struct TokenUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;     // includes reasoning tokens, as the servers count them
  std::int64_t reasoning_tokens = 0;
  std::int64_t cached_prompt_tokens = 0;  // prompt tokens served from the provider's cache
  bool reported = false;                  // false: estimated from text length (about 4 bytes a token)

  std::int64_t total() const { return prompt_tokens + completion_tokens; }
  TokenUsage& operator+=(const TokenUsage& o);
};

// Prices in US dollars per million tokens; all zero means "not configured" (cost shows as 0).
struct LlmPrices {
  double input_per_mtok = 0;
  double cached_input_per_mtok = -1;  // negative: same as input
  double output_per_mtok = 0;

  double cost_usd(const TokenUsage& usage) const;
};

struct ChatReply {
  std::string content;        // the answer, without any <think> block
  std::string reasoning;      // reasoning_content deltas, or the <think> block of the content
  std::string finish_reason;  // "stop", "length", ... (empty when the server sent none)
  std::string model;          // as the server named it
  TokenUsage usage;
  double cost_usd = 0;
  double seconds = 0;         // wall time of the successful attempt
  int attempts = 1;           // 1 + retries
};

// Splits R1-style inline reasoning out of an answer: "<think>...</think>answer", or (when the
// chat template already opened the block in the prompt) "...</think>answer". Returns
// {reasoning, answer}; text without a closing tag is all answer.
std::pair<std::string, std::string> split_think_block(const std::string& content);

}  // namespace hone
