// tests/optimize/sse_and_chat_test.cpp: the SSE parser, chunk assembly, <think> splitting,
// prices and endpoint URLs, on byte-level inputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimize/chat_stream.h"
#include "optimize/llm_client.h"
#include "optimize/sse_parser.h"

namespace {

std::vector<hone::SseEvent> parse_in_pieces(const std::string& text, std::size_t piece) {
  std::vector<hone::SseEvent> events;
  hone::SseParser p([&](const hone::SseEvent& e) { events.push_back(e); });
  for (std::size_t i = 0; i < text.size(); i += piece) p.feed(std::string_view(text).substr(i, piece));
  return events;
}

TEST(SseParser, EventsSurviveAnySplitOfTheBytes) {
  std::string text =
      ": keep-alive\n\ndata: {\"a\":1}\n\ndata: line one\ndata: line two\n\nevent: ping\ndata:x\r\n\r\n"
      "data: [DONE]\r\r";
  for (std::size_t piece : {1u, 2u, 3u, 7u, 1000u}) {
    auto events = parse_in_pieces(text, piece);
    ASSERT_EQ(events.size(), 4u) << "piece " << piece;
    EXPECT_EQ(events[0].data, "{\"a\":1}");
    EXPECT_EQ(events[1].data, "line one\nline two");
    EXPECT_EQ(events[2].event, "ping");
    EXPECT_EQ(events[2].data, "x");
    EXPECT_EQ(events[3].data, "[DONE]");
  }
}

TEST(SseParser, AnUnterminatedEventIsNotDispatched) {
  std::vector<hone::SseEvent> events;
  hone::SseParser p([&](const hone::SseEvent& e) { events.push_back(e); });
  p.feed("data: complete\n\ndata: partial");
  EXPECT_EQ(events.size(), 1u);
  EXPECT_TRUE(p.has_partial_event());
  p.feed("\n");
  EXPECT_TRUE(p.has_partial_event());
  EXPECT_EQ(events.size(), 1u);
}

TEST(ThinkBlock, SplitsOpenAndCloseTagsAndTemplateOpenedBlocks) {
  auto [r1, a1] = hone::split_think_block("<think>\nplan it\n</think>\n\nHere is the kernel");
  EXPECT_EQ(r1, "plan it");
  EXPECT_EQ(a1, "Here is the kernel");
  auto [r2, a2] = hone::split_think_block("reasoning without an opening tag</think>answer");
  EXPECT_EQ(r2, "reasoning without an opening tag");
  EXPECT_EQ(a2, "answer");
  auto [r3, a3] = hone::split_think_block("no reasoning at all");
  EXPECT_EQ(r3, "");
  EXPECT_EQ(a3, "no reasoning at all");
  auto [r4, a4] = hone::split_think_block("prose first <think>x</think> then");
  EXPECT_EQ(r4, "");
  EXPECT_EQ(a4, "prose first <think>x</think> then");
}

TEST(ChatStreamAssembler, KeepsReasoningApartAndReadsUsage) {
  std::string seen;
  hone::ChatStreamAssembler a([&](const hone::ChatDelta& d) { seen += d.reasoning ? "R" : "C"; });
  a.add_payload(R"({"model":"deepseek-reasoner","choices":[{"delta":{"role":"assistant","content":""}}]})");
  a.add_payload(R"({"choices":[{"delta":{"reasoning_content":"think ","content":null}}]})");
  a.add_payload(R"({"choices":[{"delta":{"reasoning":"more"}}]})");
  a.add_payload(R"({"choices":[{"delta":{"content":"answer"},"finish_reason":null}]})");
  a.add_payload(R"({"choices":[{"delta":{},"finish_reason":"stop"}]})");
  a.add_payload(R"({"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":50,"prompt_cache_hit_tokens":40,
                   "completion_tokens_details":{"reasoning_tokens":30}}})");
  a.add_payload("[DONE]");
  EXPECT_TRUE(a.done());
  auto r = a.reply();
  EXPECT_EQ(r.content, "answer");
  EXPECT_EQ(r.reasoning, "think more");
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.model, "deepseek-reasoner");
  EXPECT_TRUE(r.usage.reported);
  EXPECT_EQ(r.usage.prompt_tokens, 100);
  EXPECT_EQ(r.usage.cached_prompt_tokens, 40);
  EXPECT_EQ(r.usage.reasoning_tokens, 30);
  EXPECT_EQ(seen, "RRC");
  hone::LlmPrices prices{0.55, 0.14, 2.19};
  EXPECT_NEAR(prices.cost_usd(r.usage), (60 * 0.55 + 40 * 0.14 + 50 * 2.19) / 1e6, 1e-12);
}

TEST(ChatStreamAssembler, ErrorsAndGarbageAreReportedNotIgnored) {
  hone::ChatStreamAssembler a;
  a.add_payload(R"({"error":{"message":"overloaded","type":"server_error"}})");
  ASSERT_TRUE(a.server_error());
  EXPECT_EQ(*a.server_error(), "overloaded (server_error)");
  EXPECT_THROW(a.add_payload("not json"), std::runtime_error);
  EXPECT_EQ(hone::error_message_from_body(R"({"error":{"message":"bad key","code":401}})"), "bad key (401)");
  EXPECT_FALSE(hone::error_message_from_body("<html>502</html>"));
}

TEST(ChatCompletionsUrl, AcceptsBaseUrlsAndFullEndpoints) {
  EXPECT_EQ(hone::chat_completions_url("https://api.deepseek.com"), "https://api.deepseek.com/v1/chat/completions");
  EXPECT_EQ(hone::chat_completions_url("http://localhost:8000/v1/"), "http://localhost:8000/v1/chat/completions");
  EXPECT_EQ(hone::chat_completions_url("https://openrouter.ai/api/v1"), "https://openrouter.ai/api/v1/chat/completions");
  EXPECT_EQ(hone::chat_completions_url("http://h:11434/v1/chat/completions"), "http://h:11434/v1/chat/completions");
}

TEST(LlmConfig, DescribeNeverContainsTheKey) {
  hone::LlmConfig c;
  c.url = "http://x";
  c.model = "m";
  c.api_key = "sk-secret-123";
  auto text = c.describe().dump();
  EXPECT_EQ(text.find("sk-secret-123"), std::string::npos);
  EXPECT_EQ(c.describe()["api_key_set"], true);
}

}  // namespace
