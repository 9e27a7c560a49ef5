// optimize/llm_client.h: a client for any OpenAI-compatible /v1/chat/completions endpoint
// (DeepSeek, vLLM, SGLang, Ollama, llama.cpp server, OpenRouter) over libcurl: streaming (SSE),
// R1 reasoning kept apart from the answer, a per-request timeout, retries with exponential
// backoff and jitter on 429/5xx/connection errors honouring Retry-After, a concurrency limit,
// cancellation, and token/cost accounting. The API key comes only from HONE_LLM_API_KEY and is
// never logged, stored or passed on. complete() is called from the optimizer's sample threads
// concurrently; every method is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "optimize/chat_stream.h"
#include "optimize/chat_types.h"

namespace hone {

struct LlmConfig {
  // A base URL ("https://api.deepseek.com", "http://localhost:8000/v1") or the full
  // ".../chat/completions" URL; see chat_completions_url().
  std::string url;
  std::string model;
  std::string api_key;  // HONE_LLM_API_KEY; sent as "Authorization: Bearer"; empty: no header
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::chrono::seconds request_timeout{900};  // a whole attempt (R1 may think for many minutes)
  std::chrono::seconds connect_timeout{30};
  std::chrono::seconds idle_timeout{300};     // no byte at all for this long: the stream stalled
  int max_retries = 4;
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_max{60000};
  std::chrono::seconds max_retry_after{600};  // a longer Retry-After fails the request instead
  int max_concurrency = 4;                    // requests in flight at once
  bool include_usage = true;                  // ask for usage in the stream (stream_options)
  LlmPrices prices;

  // Everything but the key (for the store, logs and --json).
  nlohmann::json describe() const;
  // The settings of describe()'s output (a resumed run's); the key is not in it.
  static LlmConfig from_description(const nlohmann::json& description);
};

// The key from HONE_LLM_API_KEY (empty when unset).
std::string llm_api_key_from_environment();

// The endpoint for a configured URL: kept when it ends in /chat/completions; "/chat/completions"
// appended to a URL with a path ("http://h:8000/v1"); "/v1/chat/completions" to a bare host.
std::string chat_completions_url(const std::string& url);

class LlmError : public std::runtime_error {
 public:
  enum class Kind { Http, Connection, Timeout, Protocol, Cancelled };
  LlmError(Kind kind, const std::string& message, long http_status = 0, int attempts = 1)
      : std::runtime_error(message), kind_(kind), http_status_(http_status), attempts_(attempts) {}
  Kind kind() const { return kind_; }
  long http_status() const { return http_status_; }
  int attempts() const { return attempts_; }

 private:
  Kind kind_;
  long http_status_;
  int attempts_;
};

struct LlmCallOptions {
  std::stop_token stop;                            // aborts the transfer and any backoff wait
  std::function<void(const ChatDelta&)> on_delta;  // each piece of text, on the calling thread
  // Called before sleeping for a retry: attempt number (1-based), the delay, and why.
  std::function<void(int, std::chrono::milliseconds, const std::string&)> on_retry;
};

// Totals over every call of one client.
struct LlmTotals {
  int requests = 0;   // successful completions
  int failures = 0;   // calls that ended in LlmError (after retries)
  int retries = 0;
  TokenUsage usage;
  double cost_usd = 0;
};

struct LlmAttempt;  // why one HTTP exchange failed (llm_client.cpp)

class LlmClient {
 public:
  // Throws std::invalid_argument for a config without url or model.
  explicit LlmClient(LlmConfig config);
  ~LlmClient();
  LlmClient(const LlmClient&) = delete;
  LlmClient& operator=(const LlmClient&) = delete;

  // One chat completion (streamed). Waits for a free slot under max_concurrency, retries as
  // configured, and throws LlmError when it cannot get a complete reply.
  ChatReply complete(const std::vector<ChatMessage>& messages, const LlmCallOptions& options = {});

  LlmTotals totals() const;
  const LlmConfig& config() const { return config_; }

 private:
  // One HTTP exchange: the reply, or nullopt with `failure` filled in.
  std::optional<ChatReply> attempt(const std::string& body, const LlmCallOptions& options, LlmAttempt& failure);
  void acquire_slot(const std::stop_token& stop);
  void release_slot();

  LlmConfig config_;
  std::string endpoint_;
  mutable std::mutex mutex_;
  std::condition_variable_any slot_freed_;
  int in_flight_ = 0;
  LlmTotals totals_;
};

}  // namespace hone
