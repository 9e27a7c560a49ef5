// optimize/chat_stream.h: assembles a streamed chat completion from its SSE data payloads
// (`chat.completion.chunk` objects, then `[DONE]`): answer and reasoning deltas kept apart,
// finish reason, model, usage (the last chunk when stream_options.include_usage is set), and
// error objects some servers send mid-stream. Also reads a non-streamed completion object, for
// servers that ignore `stream`. Used by LlmClient on the transfer's thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "optimize/chat_types.h"

namespace hone {

// One piece of text as it arrives (for live progress).
struct ChatDelta {
  bool reasoning = false;
  std::string_view text;
};

class ChatStreamAssembler {
 public:
  explicit ChatStreamAssembler(std::function<void(const ChatDelta&)> on_delta = {})
      : on_delta_(std::move(on_delta)) {}

  // One SSE data payload. Throws std::runtime_error for a payload that is not JSON.
  void add_payload(std::string_view data);
  // A whole non-streamed completion body ({"choices":[{"message":{...}}], "usage": ...}).
  void add_completion(std::string_view body);

  bool done() const { return done_; }                // [DONE] seen
  bool finished() const { return !finish_reason_.empty(); }
  // An error object the server sent in the stream, as "message (type/code)".
  const std::optional<std::string>& server_error() const { return server_error_; }
  std::size_t chunks() const { return chunks_; }

  // The reply: content with any <think> block split out into reasoning.
  ChatReply reply() const;

 private:
  void add_usage(const nlohmann::json& usage);
  void add_text(bool reasoning, const std::string& text);
  std::function<void(const ChatDelta&)> on_delta_;
  std::string content_;
  std::string reasoning_;
  std::string finish_reason_;
  std::string model_;
  TokenUsage usage_;
  std::optional<std::string> server_error_;
  bool done_ = false;
  std::size_t chunks_ = 0;
};

// "message (type, code)" from an OpenAI-style error body {"error": {...}} or {"message": ...};
// nullopt when the body holds neither.
std::optional<std::string> error_message_from_body(std::string_view body);

}  // namespace hone
