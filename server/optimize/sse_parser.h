// optimize/sse_parser.h: an incremental parser for Server-Sent Events (the WHATWG event-stream
// format that OpenAI-compatible servers stream chat completions in). Bytes arrive in arbitrary
// pieces from libcurl's write callback; complete events come out. Used by LlmClient on the
// thread running the transfer; one parser per response.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace hone {

struct SseEvent {
  std::string event;  // the `event:` field; empty means "message"
  std::string data;   // `data:` lines joined with '\n'
  std::string id;
};

class SseParser {
 public:
  explicit SseParser(std::function<void(const SseEvent&)> on_event) : on_event_(std::move(on_event)) {}

  // Feeds the next bytes; dispatches every event completed by them (lines end in \n, \r\n or \r;
  // a blank line ends an event; lines starting with ':' are comments, e.g. keep-alives).
  void feed(std::string_view bytes);
  // The end of the stream: a final event without its blank line is dropped, as the spec says.
  bool has_partial_event() const { return has_data_ || !line_.empty(); }
  // Comment lines seen (keep-alive pings).
  std::size_t comment_count() const { return comments_; }

 private:
  void take_line(std::string_view line);
  std::function<void(const SseEvent&)> on_event_;
  std::string line_;
  bool last_was_cr_ = false;
  bool has_data_ = false;
  std::string data_;
  std::string event_;
  std::string id_;
  std::size_t comments_ = 0;
};

}  // namespace hone
