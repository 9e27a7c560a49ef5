// tests/optimize/llm_client_test.cpp: LlmClient against a real local HTTP server speaking the
// OpenAI chat protocol with SSE (fake_llm_server.py): R1 reasoning, usage and cost, 429 with
// Retry-After, 5xx, a dropped stream, slow replies, timeouts, cancellation, the concurrency limit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "fake_llm_server.h"
#include "optimize/llm_client.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

class LlmClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hone-llm-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    server_ = std::make_unique<hone::testing::FakeLlmServer>(dir_);
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }
  hone::LlmConfig config() const {
    hone::LlmConfig c;
    c.url = server_->base_url();
    c.model = "deepseek-reasoner";
    c.api_key = "sk-test-key";
    c.backoff_initial = 50ms;
    c.backoff_max = 200ms;
    c.max_retries = 2;
    return c;
  }
  static std::vector<hone::ChatMessage> ask(const std::string& text) { return {{"user", text}}; }

  fs::path dir_;
  std::unique_ptr<hone::testing::FakeLlmServer> server_;
};

TEST_F(LlmClientTest, StreamsAnR1ReplyWithReasoningApartUsageAndCost) {
  server_->always({{"reasoning", "Let me think about coalescing."},
                   {"content", "```cuda\n__global__ void k() {}\n```"},
                   {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 400},
                              {"completion_tokens_details", {{"reasoning_tokens", 300}}}}}});
  auto cfg = config();
  cfg.prices = {0.5, -1, 2.0};
  cfg.temperature = 0.6;
  hone::LlmClient client(cfg);
  std::string streamed_reasoning, streamed_content;
  hone::LlmCallOptions opts;
  opts.on_delta = [&](const hone::ChatDelta& d) { (d.reasoning ? streamed_reasoning : streamed_content) += d.text; };
  auto reply = client.complete(ask("optimize this"), opts);
  EXPECT_EQ(reply.reasoning, "Let me think about coalescing.");
  EXPECT_EQ(reply.content, "```cuda\n__global__ void k() {}\n```");
  EXPECT_EQ(streamed_reasoning, reply.reasoning);
  EXPECT_EQ(streamed_content, reply.content);
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_TRUE(reply.usage.reported);
  EXPECT_EQ(reply.usage.prompt_tokens, 1000);
  EXPECT_EQ(reply.usage.reasoning_tokens, 300);
  EXPECT_NEAR(reply.cost_usd, (1000 * 0.5 + 400 * 2.0) / 1e6, 1e-12);
  auto totals = client.totals();
  EXPECT_EQ(totals.requests, 1);
  EXPECT_EQ(totals.usage.completion_tokens, 400);

  auto reqs = server_->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(reqs[0]["headers"]["Authorization"], "Bearer sk-test-key");
  const auto& body = reqs[0]["body"];
  EXPECT_EQ(body["model"], "deepseek-reasoner");
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["temperature"], 0.6);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "optimize this");
}

TEST_F(LlmClientTest, InlineThinkBlocksAreSplitAndMissingUsageIsEstimated) {
  server_->always({{"reasoning", "inline reasoning"}, {"think_inline", true}, {"content", "the answer"},
                   {"usage", false}});
  auto cfg = config();
  cfg.api_key.clear();
  hone::LlmClient client(cfg);
  auto reply = client.complete(ask("q"));
  EXPECT_EQ(reply.reasoning, "inline reasoning");
  EXPECT_EQ(reply.content, "the answer");
  EXPECT_FALSE(reply.usage.reported);
  EXPECT_GT(reply.usage.completion_tokens, 0);
  EXPECT_FALSE(server_->requests()[0]["headers"].contains("Authorization"));
}

TEST_F(LlmClientTest, HonoursRetryAfterOn429ThenSucceeds) {
  server_->set_script({{"rules",
                        {{{"times", 1}, {"response", {{"status", 429}, {"headers", {{"Retry-After", "1"}}},
                                                      {"error", {{"message", "rate limited"}}}}}},
                         {{"response", {{"content", "ok"}}}}}}});
  hone::LlmClient client(config());
  std::vector<std::chrono::milliseconds> delays;
  hone::LlmCallOptions opts;
  opts.on_retry = [&](int, std::chrono::milliseconds d, const std::string& why) {
    delays.push_back(d);
    EXPECT_NE(why.find("HTTP 429"), std::string::npos) << why;
    EXPECT_NE(why.find("rate limited"), std::string::npos) << why;
  };
  auto t0 = std::chrono::steady_clock::now();
  auto reply = client.complete(ask("q"), opts);
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(reply.content, "ok");
  EXPECT_EQ(reply.attempts, 2);
  ASSERT_EQ(delays.size(), 1u);
  EXPECT_GE(delays[0], 1000ms);
  EXPECT_GE(waited, 1000ms);
  EXPECT_EQ(client.totals().retries, 1);
  EXPECT_EQ(server_->requests().size(), 2u);
}

TEST_F(LlmClientTest, ServerErrorsAreRetriedWithBackoffThenReported) {
  server_->always({{"status", 503}, {"error", {{"message", "model overloaded"}, {"type", "server_error"}}}});
  hone::LlmClient client(config());
  try {
    client.complete(ask("q"));
    FAIL() << "expected LlmError";
  } catch (const hone::LlmError& e) {
    EXPECT_EQ(e.kind(), hone::LlmError::Kind::Http);
    EXPECT_EQ(e.http_status(), 503);
    EXPECT_EQ(e.attempts(), 3);
    std::string msg = e.what();
    EXPECT_NE(msg.find("model overloaded"), std::string::npos) << msg;
    EXPECT_NE(msg.find(server_->base_url()), std::string::npos) << msg;
  }
  EXPECT_EQ(server_->requests().size(), 3u);
  EXPECT_EQ(client.totals().failures, 1);
}

TEST_F(LlmClientTest, ClientErrorsAreNotRetriedAndNeverEchoTheKey) {
  server_->always({{"status", 401}, {"error", {{"message", "Authentication Fails"}}}});
  hone::LlmClient client(config());
  try {
    client.complete(ask("q"));
    FAIL() << "expected LlmError";
  } catch (const hone::LlmError& e) {
    EXPECT_EQ(e.http_status(), 401);
    EXPECT_EQ(e.attempts(), 1);
    std::string msg = e.what();
    EXPECT_NE(msg.find("Authentication Fails"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("sk-test-key"), std::string::npos) << msg;
  }
  EXPECT_EQ(server_->requests().size(), 1u);
}

TEST_F(LlmClientTest, ADroppedStreamIsRetried) {
  for (std::string framing : {"chunked", "close"}) {
    server_->set_script({{"rules",
                          {{{"times", 1}, {"response", {{"content", std::string(200, 'x')}, {"drop_after_chunks", 3},
                                                        {"framing", framing}}}},
                           {{"response", {{"content", "complete " + framing}}}}}}});
    hone::LlmClient client(config());
    std::vector<std::string> why;
    hone::LlmCallOptions opts;
    opts.on_retry = [&](int, std::chrono::milliseconds, const std::string& w) { why.push_back(w); };
    auto reply = client.complete(ask("q"), opts);
    EXPECT_EQ(reply.content, "complete " + framing);
    EXPECT_EQ(reply.attempts, 2) << framing;
    ASSERT_EQ(why.size(), 1u);
    if (framing == "close") {
      EXPECT_NE(why[0].find("ended before [DONE]"), std::string::npos) << why[0];
    }
  }
}

TEST_F(LlmClientTest, AnErrorInsideTheStreamIsRetriedThenReported) {
  server_->always({{"content", "partial"}, {"stream_error", {{"message", "upstream reset"}}}});
  hone::LlmClient client(config());
  try {
    client.complete(ask("q"));
    FAIL() << "expected LlmError";
  } catch (const hone::LlmError& e) {
    EXPECT_NE(std::string(e.what()).find("upstream reset"), std::string::npos) << e.what();
    EXPECT_EQ(e.attempts(), 3);
  }
}

TEST_F(LlmClientTest, ASlowReplyWithinTheTimeoutSucceedsAndOneBeyondItTimesOutWithoutRetry) {
  server_->always({{"delay_s", 0.5}, {"chunk_delay_s", 0.1}, {"keepalive", true}, {"content", "slow but fine"},
                   {"chunk_chars", 4}});
  auto cfg = config();
  cfg.request_timeout = 10s;
  hone::LlmClient client(cfg);
  EXPECT_EQ(client.complete(ask("q")).content, "slow but fine");

  server_->always({{"delay_s", 3}, {"content", "too late"}});
  cfg.request_timeout = 1s;
  hone::LlmClient hasty(cfg);
  auto t0 = std::chrono::steady_clock::now();
  try {
    hasty.complete(ask("q"));
    FAIL() << "expected a timeout";
  } catch (const hone::LlmError& e) {
    EXPECT_EQ(e.kind(), hone::LlmError::Kind::Timeout) << e.what();
    EXPECT_EQ(e.attempts(), 1);
    EXPECT_NE(std::string(e.what()).find("timed out after 1 s"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2500ms);
}

TEST_F(LlmClientTest, CancellationAbortsAStreamPromptly) {
  server_->always({{"content", std::string(400, 'y')}, {"chunk_chars", 4}, {"chunk_delay_s", 0.05}});
  hone::LlmClient client(config());
  std::stop_source stop;
  hone::LlmCallOptions opts;
  opts.stop = stop.get_token();
  std::atomic<int> deltas{0};
  opts.on_delta = [&](const hone::ChatDelta&) { ++deltas; };
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    stop.request_stop();
  });
  auto t0 = std::chrono::steady_clock::now();
  try {
    client.complete(ask("q"), opts);
    FAIL() << "expected cancellation";
  } catch (const hone::LlmError& e) {
    EXPECT_EQ(e.kind(), hone::LlmError::Kind::Cancelled);
  }
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2000ms);  // the full stream takes 5 s
  EXPECT_GT(deltas.load(), 0);
}

TEST_F(LlmClientTest, CancellationInterruptsABackoffWait) {
  server_->always({{"status", 429}, {"headers", {{"Retry-After", "30"}}}, {"error", {{"message", "slow down"}}}});
  hone::LlmClient client(config());
  std::stop_source stop;
  hone::LlmCallOptions opts;
  opts.stop = stop.get_token();
  opts.on_retry = [&](int, std::chrono::milliseconds, const std::string&) { stop.request_stop(); };
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(client.complete(ask("q"), opts), hone::LlmError);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
}

TEST_F(LlmClientTest, TheConcurrencyLimitHoldsRequestsBack) {
  server_->always({{"delay_s", 0.6}, {"content", "done"}});
  auto cfg = config();
  cfg.max_concurrency = 2;
  hone::LlmClient client(cfg);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      if (client.complete(ask("q")).content == "done") ++ok;
    });
  for (auto& t : threads) t.join();
  auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(ok.load(), 4);
  EXPECT_GE(elapsed, 1200ms);  // two waves of two
  auto reqs = server_->requests();
  ASSERT_EQ(reqs.size(), 4u);
  std::vector<double> arrivals;
  for (const auto& r : reqs) arrivals.push_back(r["time"].get<double>());
  std::sort(arrivals.begin(), arrivals.end());
  EXPECT_GE(arrivals[2] - arrivals[0], 0.5);
}

TEST_F(LlmClientTest, ANonStreamedCompletionIsAccepted) {
  server_->always({{"stream", false}, {"reasoning", "r"}, {"content", "plain json"}});
  hone::LlmClient client(config());
  auto reply = client.complete(ask("q"));
  EXPECT_EQ(reply.content, "plain json");
  EXPECT_EQ(reply.reasoning, "r");
}

TEST_F(LlmClientTest, AnUnreachableEndpointIsAConnectionErrorAfterRetries) {
  auto cfg = config();
  cfg.url = "http://127.0.0.1:1/v1";  // nothing listens on port 1
  hone::LlmClient client(cfg);
  try {
    client.complete(ask("q"));
    FAIL() << "expected LlmError";
  } catch (const hone::LlmError& e) {
    EXPECT_EQ(e.kind(), hone::LlmError::Kind::Connection);
    EXPECT_EQ(e.attempts(), 3);
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:1"), std::string::npos) << e.what();
  }
}

TEST_F(LlmClientTest, ConfigWithoutUrlOrModelIsRefused) {
  hone::LlmConfig c;
  c.model = "m";
  EXPECT_THROW(hone::LlmClient{c}, std::invalid_argument);
  c.url = "http://x";
  c.model.clear();
  EXPECT_THROW(hone::LlmClient{c}, std::invalid_argument);
}

}  // namespace
