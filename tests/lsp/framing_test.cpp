// tests/lsp/framing_test.cpp: Content-Length framing: whole and split messages, bad headers,
// oversized bodies skipped without buffering (and cut short at the next header when their length
// lied), too deeply nested bodies, junk and wrong lengths followed by a resync.
#include <gtest/gtest.h>

#include "lsp/framing.h"
#include "lsp/transport.h"

namespace hone::lsp {
namespace {

std::vector<Frame> drain(MessageReader& reader) {
  std::vector<Frame> frames;
  while (auto frame = reader.next()) frames.push_back(*frame);
  return frames;
}

TEST(Framing, ReadsConsecutiveMessagesFedByteByByte) {
  std::string stream = frame_message(R"({"a":1})") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" +
                       frame_message(R"({"b":2})");
  MessageReader reader(1024);
  std::vector<Frame> frames;
  for (char c : stream) {
    reader.feed(std::string_view(&c, 1));
    for (auto& f : drain(reader)) frames.push_back(f);
  }
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::message);
  EXPECT_EQ(frames[0].body, R"({"a":1})");
  EXPECT_EQ(frames[1].body, R"({"b":2})");
}

TEST(Framing, HeaderNameIsCaseInsensitiveAndOtherHeadersAreIgnored) {
  MessageReader reader(1024);
  reader.feed("content-length: 2\r\nX-Other: 1\r\n\r\n{}");
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].body, "{}");
}

TEST(Framing, BadLengthValueIsReportedAndTheNextMessageStillArrives) {
  MessageReader reader(1024);
  reader.feed("Content-Length: twelve\r\n\r\n" + frame_message("{}"));
  auto frames = drain(reader);
  ASSERT_GE(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::bad_frame);
  EXPECT_NE(frames[0].error.find("twelve"), std::string::npos);
  EXPECT_EQ(frames.back().kind, Frame::Kind::message);
  EXPECT_EQ(frames.back().body, "{}");
}

TEST(Framing, HeaderWithoutContentLengthIsDropped) {
  MessageReader reader(1024);
  reader.feed("Content-Type: x\r\n\r\n" + frame_message("[1]"));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::bad_frame);
  EXPECT_EQ(frames[1].body, "[1]");
}

TEST(Framing, OversizedBodyIsSkippedWithItsPrefixKept) {
  MessageReader reader(100);
  std::string big = R"({"jsonrpc":"2.0","id":7,"method":"x","params":")" + std::string(5000, 'a') + R"("})";
  std::string stream = frame_message(big) + frame_message("{}");
  // Fed in small chunks: the skipped body is never held whole.
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < stream.size(); i += 333) {
    reader.feed(std::string_view(stream).substr(i, 333));
    for (auto& f : drain(reader)) frames.push_back(f);
  }
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::too_large);
  EXPECT_NE(frames[0].error.find("exceeds the limit of 100 bytes"), std::string::npos);
  EXPECT_EQ(sniff_request_id(frames[0].body), 7);
  EXPECT_EQ(frames[1].kind, Frame::Kind::message);
  EXPECT_EQ(frames[1].body, "{}");
}

TEST(Framing, JunkBeforeAHeaderIsDroppedAndReported) {
  MessageReader reader(1024);
  reader.feed("garbage}" + frame_message("{\"x\":1}"));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::bad_frame);
  EXPECT_NE(frames[0].error.find("8 bytes of junk"), std::string::npos);
  EXPECT_EQ(frames[1].body, "{\"x\":1}");
}

TEST(Framing, TooShortLengthLeavesJunkThatIsSkipped) {
  MessageReader reader(1024);
  std::string body = R"({"a":"hello"})";
  reader.feed("Content-Length: 5\r\n\r\n" + body + frame_message("{}"));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::message);  // truncated: the JSON parser rejects it
  EXPECT_EQ(frames[0].body, body.substr(0, 5));
  EXPECT_EQ(frames[1].kind, Frame::Kind::bad_frame);
  EXPECT_EQ(frames[2].body, "{}");
}

TEST(Framing, TooLongLengthSwallowsTheNextMessageWhichResyncRecovers) {
  MessageReader reader(1024);
  std::string first = R"({"a":1})";
  std::string second = frame_message(R"({"b":2})");
  std::string third = frame_message(R"({"c":3})");
  reader.feed("Content-Length: " + std::to_string(first.size() + second.size()) + "\r\n\r\n" + first + second + third);
  auto swallowed = reader.next();  // as the transport does: resync right after the bad body
  ASSERT_TRUE(swallowed);
  EXPECT_EQ(swallowed->body, first + second);
  reader.resync_within(swallowed->body);
  auto rest = drain(reader);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].body, R"({"b":2})");
  EXPECT_EQ(rest[1].body, R"({"c":3})");
}

TEST(Framing, EndlessHeaderIsCutAtTheLimit) {
  MessageReader reader(1024);
  reader.feed(std::string(MessageReader::kMaxHeaderBytes + 10, 'x'));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::bad_frame);
  reader.feed(frame_message("{}"));
  frames = drain(reader);
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().body, "{}");
}

TEST(Framing, OverLimitLengthWithAShortBodyResyncsAtTheNextHeader) {
  MessageReader reader(100);
  std::string lying = "Content-Length: 1000000000000\r\n\r\n" + std::string(R"({"jsonrpc":"2.0","id":7,"method":"x","params":{}})");
  reader.feed(lying + frame_message(R"({"b":2})"));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::too_large);
  EXPECT_NE(frames[0].error.find("at the next message's header"), std::string::npos) << frames[0].error;
  EXPECT_EQ(sniff_request_id(frames[0].body), 7);
  EXPECT_EQ(frames[1].body, R"({"b":2})");
}

TEST(Framing, OverLimitBodyBeingSkippedStopsAtAHeaderSplitAcrossReads) {
  MessageReader reader(100);
  // Longer than the kept prefix, so the reader is already dropping bytes when the header comes.
  std::string stream = "Content-Length: 99999999\r\n\r\n" + std::string(3 * MessageReader::kKeptPrefixBytes, 'a') +
                       frame_message(R"({"b":2})") + frame_message(R"({"c":3})");
  std::vector<Frame> frames;
  for (std::size_t i = 0; i < stream.size(); i += 7) {
    reader.feed(std::string_view(stream).substr(i, 7));
    for (auto& f : drain(reader)) frames.push_back(f);
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::too_large);
  EXPECT_EQ(frames[1].body, R"({"b":2})");
  EXPECT_EQ(frames[2].body, R"({"c":3})");
}

TEST(Framing, HeaderTextInsideAStringDoesNotCutAnHonestOversizedBody) {
  MessageReader reader(100);
  std::string body = R"({"id":1,"params":{"text":"Content-Length: 5\r\n\r\n)" + std::string(300, 'x') + R"("}})";
  reader.feed(frame_message(body) + frame_message("{}"));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::too_large);
  EXPECT_EQ(frames[0].error.find("next message's header"), std::string::npos);
  EXPECT_EQ(frames[1].body, "{}");
}

TEST(Framing, DeeplyNestedBodyIsRefusedBeforeParsing) {
  MessageReader reader(1u << 20);
  const std::size_t depth = 100000;
  std::string deep = R"({"jsonrpc":"2.0","id":3,"method":"$/anything","params":{"x":)" + std::string(depth, '[') +
                     std::string(depth, ']') + "}}";
  reader.feed(frame_message(deep) + frame_message("{}"));
  auto frames = drain(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, Frame::Kind::too_deep);
  EXPECT_NE(frames[0].error.find("deeper than 512 levels"), std::string::npos) << frames[0].error;
  EXPECT_EQ(sniff_request_id(frames[0].body), 3);
  EXPECT_EQ(frames[1].body, "{}");
}

TEST(Framing, NestingBoundCountsOnlyBracketsOutsideStrings) {
  const std::size_t limit = MessageReader::kMaxNesting;
  EXPECT_FALSE(nests_deeper_than(std::string(limit, '[') + std::string(limit, ']'), limit));
  EXPECT_TRUE(nests_deeper_than(std::string(limit + 1, '{'), limit));
  EXPECT_FALSE(nests_deeper_than("[\"" + std::string(2 * limit, '[') + "\\\"\"]", limit));
  EXPECT_FALSE(nests_deeper_than(std::string(3 * limit, ']') + "[]", limit));
}

TEST(Framing, SniffsStringAndMissingIds) {
  EXPECT_EQ(sniff_request_id(R"({"jsonrpc":"2.0","id":"abc","method":"m")"), "abc");
  EXPECT_TRUE(sniff_request_id(R"({"jsonrpc":"2.0","method":"m","params":{"id":3}})").is_null());
}

}  // namespace
}  // namespace hone::lsp
