// optimize/llm_client.cpp: chat completions over libcurl's easy API (one handle per attempt, on
// the calling thread), with the retry, concurrency and accounting policy of LlmClient.
#include "optimize/llm_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>

#include "optimize/sse_parser.h"

namespace hone {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;

void ensure_curl_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlHandle {
  CURL* curl = curl_easy_init();
  curl_slist* headers = nullptr;
  ~CurlHandle() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
  }
};

// What the callbacks of one transfer share.
struct Transfer {
  explicit Transfer(std::function<void(const ChatDelta&)> on_delta)
      : assembler(std::move(on_delta)), sse([this](const SseEvent& ev) { assembler.add_payload(ev.data); }) {}
  CURL* curl = nullptr;
  const std::stop_token* stop = nullptr;
  bool decided = false;  // whether the response is an event stream is known
  bool streaming = false;
  long status = 0;
  std::string body;  // a non-stream body (an error, or a non-streamed completion)
  ChatStreamAssembler assembler;
  SseParser sse;
  std::optional<std::string> parse_error;
};

size_t on_write(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view bytes(data, size * count);
  if (!t->decided) {
    t->decided = true;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status);
    char* type = nullptr;
    curl_easy_getinfo(t->curl, CURLINFO_CONTENT_TYPE, &type);
    t->streaming = t->status >= 200 && t->status < 300 && type && std::string_view(type).find("text/event-stream") != std::string_view::npos;
  }
  if (!t->streaming) {
    if (t->body.size() < kMaxErrorBody || (t->status >= 200 && t->status < 300)) t->body.append(bytes);
    return bytes.size();
  }
  try {
    t->sse.feed(bytes);
  } catch (const std::exception& e) {
    t->parse_error = e.what();
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  return bytes.size();
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  return t->stop && t->stop->stop_requested() ? 1 : 0;
}

std::chrono::milliseconds backoff_delay(const LlmConfig& c, int attempt) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  double base = static_cast<double>(c.backoff_initial.count()) * std::pow(2.0, attempt - 1);
  base = std::min(base, static_cast<double>(c.backoff_max.count()));
  std::uniform_real_distribution<double> jitter(0.5, 1.0);  // "equal jitter": half fixed, half random
  return std::chrono::milliseconds(static_cast<std::int64_t>(base * jitter(rng)));
}

std::int64_t estimate_tokens(std::size_t bytes) { return static_cast<std::int64_t>((bytes + 3) / 4); }

}  // namespace

// Why an attempt failed, and whether another attempt may help.
struct LlmAttempt {
  LlmError::Kind kind = LlmError::Kind::Protocol;
  std::string message;
  long status = 0;
  bool retryable = false;
  std::optional<std::chrono::seconds> retry_after;
};

nlohmann::json LlmConfig::describe() const {
  nlohmann::json j = {{"url", url},
                      {"model", model},
                      {"api_key_set", !api_key.empty()},
                      {"request_timeout_s", request_timeout.count()},
                      {"max_retries", max_retries},
                      {"max_concurrency", max_concurrency},
                      {"prices_usd_per_mtok",
                       {{"input", prices.input_per_mtok},
                        {"cached_input", prices.cached_input_per_mtok < 0 ? prices.input_per_mtok
                                                                          : prices.cached_input_per_mtok},
                        {"output", prices.output_per_mtok}}}};
  if (temperature) j["temperature"] = *temperature;
  if (max_tokens) j["max_tokens"] = *max_tokens;
  return j;
}

LlmConfig LlmConfig::from_description(const nlohmann::json& d) {
  LlmConfig c;
  c.url = d.value("url", "");
  c.model = d.value("model", "");
  c.request_timeout = std::chrono::seconds(d.value("request_timeout_s", c.request_timeout.count()));
  c.max_retries = d.value("max_retries", c.max_retries);
  c.max_concurrency = d.value("max_concurrency", c.max_concurrency);
  if (d.contains("temperature") && d["temperature"].is_number()) c.temperature = d["temperature"].get<double>();
  if (d.contains("max_tokens") && d["max_tokens"].is_number()) c.max_tokens = d["max_tokens"].get<int>();
  if (d.contains("prices_usd_per_mtok") && d["prices_usd_per_mtok"].is_object()) {
    const auto& p = d["prices_usd_per_mtok"];
    c.prices.input_per_mtok = p.value("input", 0.0);
    c.prices.cached_input_per_mtok = p.value("cached_input", -1.0);
    c.prices.output_per_mtok = p.value("output", 0.0);
  }
  return c;
}

std::string llm_api_key_from_environment() {
  const char* key = std::getenv("HONE_LLM_API_KEY");
  return key ? std::string(key) : std::string();
}

std::string chat_completions_url(const std::string& url) {
  std::string u = url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  static constexpr std::string_view kSuffix = "/chat/completions";
  if (u.size() >= kSuffix.size() && u.compare(u.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) return u;
  auto scheme = u.find("://");
  auto path = u.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return u + (path == std::string::npos ? "/v1" : "") + std::string(kSuffix);
}

LlmClient::LlmClient(LlmConfig config) : config_(std::move(config)) {
  if (config_.url.empty()) throw std::invalid_argument("no LLM endpoint: give --llm-url (an OpenAI-compatible base URL)");
  if (config_.model.empty()) throw std::invalid_argument("no LLM model: give --llm-model");
  if (config_.max_concurrency < 1) config_.max_concurrency = 1;
  endpoint_ = chat_completions_url(config_.url);
  ensure_curl_initialized();
}

LlmClient::~LlmClient() = default;

LlmTotals LlmClient::totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

void LlmClient::acquire_slot(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  if (!slot_freed_.wait(lock, stop, [&] { return in_flight_ < config_.max_concurrency; }))
    throw LlmError(LlmError::Kind::Cancelled, "cancelled while waiting for a free LLM request slot");
  ++in_flight_;
}

void LlmClient::release_slot() {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
  }
  slot_freed_.notify_one();
}

ChatReply LlmClient::complete(const std::vector<ChatMessage>& messages, const LlmCallOptions& options) {
  nlohmann::json body = {{"model", config_.model}, {"messages", to_json(messages)}, {"stream", true}};
  if (config_.include_usage) body["stream_options"] = {{"include_usage", true}};
  if (config_.temperature) body["temperature"] = *config_.temperature;
  if (config_.max_tokens) body["max_tokens"] = *config_.max_tokens;
  std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  for (int attempt_no = 1;; ++attempt_no) {
    if (options.stop.stop_requested()) throw LlmError(LlmError::Kind::Cancelled, "cancelled", 0, attempt_no);
    acquire_slot(options.stop);
    LlmAttempt failure;
    std::optional<ChatReply> reply;
    try {
      reply = attempt(text, options, failure);
    } catch (...) {
      release_slot();
      throw;
    }
    release_slot();
    if (reply) {
      reply->attempts = attempt_no;
      if (!reply->usage.reported) {
        reply->usage.prompt_tokens = estimate_tokens(text.size());
        reply->usage.completion_tokens = estimate_tokens(reply->content.size() + reply->reasoning.size());
        reply->usage.reasoning_tokens = estimate_tokens(reply->reasoning.size());
      }
      reply->cost_usd = config_.prices.cost_usd(reply->usage);
      std::lock_guard lock(mutex_);
      ++totals_.requests;
      totals_.usage += reply->usage;
      totals_.cost_usd += reply->cost_usd;
      return *reply;
    }
    std::optional<std::chrono::milliseconds> delay;
    if (failure.retryable && attempt_no <= config_.max_retries) {
      delay = failure.retry_after ? std::chrono::duration_cast<std::chrono::milliseconds>(*failure.retry_after)
                                  : backoff_delay(config_, attempt_no);
      if (failure.retry_after && *failure.retry_after > config_.max_retry_after) {
        failure.message += "; the server asked to retry after " + std::to_string(failure.retry_after->count()) +
                           " s, longer than the " + std::to_string(config_.max_retry_after.count()) + " s allowed";
        delay.reset();
      }
    }
    if (!delay) {
      {
        std::lock_guard lock(mutex_);
        ++totals_.failures;
      }
      std::string msg = failure.message;
      if (attempt_no > 1) msg += " (after " + std::to_string(attempt_no) + " attempts)";
      throw LlmError(failure.kind, msg, failure.status, attempt_no);
    }
    {
      std::lock_guard lock(mutex_);
      ++totals_.retries;
    }
    if (options.on_retry) options.on_retry(attempt_no, *delay, failure.message);
    std::mutex m;
    std::unique_lock lock(m);
    std::condition_variable_any cv;
    cv.wait_for(lock, options.stop, *delay, [] { return false; });
  }
}

namespace {

void set_request_options(CurlHandle& h, Transfer& t, const LlmConfig& config, const std::string& endpoint,
                         const std::string& body, char* errbuf) {
  h.headers = curl_slist_append(h.headers, "Content-Type: application/json");
  h.headers = curl_slist_append(h.headers, "Accept: text/event-stream");
  if (!config.api_key.empty())
    h.headers = curl_slist_append(h.headers, ("Authorization: Bearer " + config.api_key).c_str());
  curl_easy_setopt(h.curl, CURLOPT_URL, endpoint.c_str());
  curl_easy_setopt(h.curl, CURLOPT_HTTPHEADER, h.headers);
  curl_easy_setopt(h.curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h.curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(h.curl, CURLOPT_USERAGENT, "hone/" HONE_VERSION);
  curl_easy_setopt(h.curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h.curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h.curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h.curl, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(h.curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h.curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h.curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h.curl, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(h.curl, CURLOPT_TIMEOUT_MS, static_cast<long>(config.request_timeout.count() * 1000));
  curl_easy_setopt(h.curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config.connect_timeout.count() * 1000));
  curl_easy_setopt(h.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h.curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(config.idle_timeout.count()));
}

// A transfer that failed below HTTP (connection, timeout, stalled stream).
LlmAttempt transport_failure(CURLcode rc, const char* errbuf, double seconds, const LlmConfig& config,
                             const std::string& endpoint) {
  const std::string where = " from " + endpoint;
  std::string detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  LlmAttempt failure;
  failure.kind = LlmError::Kind::Connection;
  failure.retryable = true;
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    bool whole = seconds + 1.0 >= static_cast<double>(config.request_timeout.count());
    failure.kind = whole ? LlmError::Kind::Timeout : LlmError::Kind::Connection;
    failure.retryable = !whole;
    failure.message = whole ? "the LLM request timed out after " + std::to_string(config.request_timeout.count()) +
                                  " s" + where
                            : "the LLM stream stalled (no data for " + std::to_string(config.idle_timeout.count()) +
                                  " s)" + where;
  } else if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL) {
    failure.retryable = false;
    failure.message = "cannot reach the LLM endpoint " + endpoint + ": " + detail;
  } else {
    failure.message = "connection error" + where + ": " + detail;
  }
  return failure;
}

LlmAttempt http_failure(CURL* curl, long status, const std::string& body, const std::string& where) {
  LlmAttempt failure;
  failure.status = status;
  failure.kind = LlmError::Kind::Http;
  failure.retryable = status == 408 || status == 429 || status >= 500;
  auto server_msg = error_message_from_body(body);
  std::string snippet = server_msg ? *server_msg : body.substr(0, 300);
  failure.message = "HTTP " + std::to_string(status) + where + (snippet.empty() ? "" : ": " + snippet);
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
    failure.retry_after = std::chrono::seconds(retry_after);
  return failure;
}

// Why a complete HTTP 2xx transfer holds no reply, or nullopt when it does. A body that was not
// streamed is parsed here (an event stream served with another content type is still one).
std::optional<LlmAttempt> body_failure(Transfer& t, const std::string& where) {
  auto retryable = [](LlmError::Kind kind, std::string message) {
    LlmAttempt failure;
    failure.kind = kind;
    failure.retryable = true;
    failure.message = std::move(message);
    return failure;
  };
  if (t.parse_error) return retryable(LlmError::Kind::Protocol, *t.parse_error + where);
  if (!t.streaming) {
    try {
      auto first = t.body.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && t.body.compare(first, 5, "data:") == 0) {
        t.sse.feed(t.body);
        t.sse.feed("\n\n");
      } else {
        t.assembler.add_completion(t.body);
      }
    } catch (const std::exception& e) {
      return retryable(LlmError::Kind::Protocol, e.what() + where);
    }
  }
  if (t.assembler.server_error())
    return retryable(LlmError::Kind::Http, "the server reported an error" + where + ": " + *t.assembler.server_error());
  if (!t.assembler.done() && !t.assembler.finished())
    return retryable(LlmError::Kind::Connection, "the stream" + where + " ended before [DONE] (after " +
                                                     std::to_string(t.assembler.chunks()) + " chunks)");
  return std::nullopt;
}

}  // namespace

std::optional<ChatReply> LlmClient::attempt(const std::string& body, const LlmCallOptions& options,
                                            LlmAttempt& failure) {
  CurlHandle h;
  if (!h.curl) throw LlmError(LlmError::Kind::Connection, "libcurl could not create a handle");
  Transfer t(options.on_delta);
  t.curl = h.curl;
  t.stop = &options.stop;
  char errbuf[CURL_ERROR_SIZE] = {0};
  set_request_options(h, t, config_, endpoint_, body, errbuf);

  auto start = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(h.curl);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  long status = 0;
  curl_easy_getinfo(h.curl, CURLINFO_RESPONSE_CODE, &status);
  failure.status = status;
  const std::string where = " from " + endpoint_;

  if (rc == CURLE_ABORTED_BY_CALLBACK || options.stop.stop_requested()) {
    failure.kind = LlmError::Kind::Cancelled;
    failure.message = "cancelled";
    return std::nullopt;
  }
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t.parse_error)) {
    failure = transport_failure(rc, errbuf, seconds, config_, endpoint_);
    return std::nullopt;
  }
  if (!t.parse_error && (status < 200 || status >= 300)) {
    failure = http_failure(h.curl, status, t.body, where);
    return std::nullopt;
  }
  if (auto why = body_failure(t, where)) {
    why->status = status;
    failure = *why;
    return std::nullopt;
  }
  ChatReply reply = t.assembler.reply();
  reply.seconds = seconds;
  return reply;
}

}  // namespace hone
