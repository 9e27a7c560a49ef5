// lsp/framing.h: the base protocol's Content-Length framing, as a pure byte-stream parser that
// never fails hard: bad headers, oversized bodies and junk between messages become Frame errors
// and the parser resynchronises on the next header. Used by the transport's reader thread and
// by the fuzzer.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hone::lsp {

struct Frame {
  enum class Kind {
    message,    // `body` holds one complete message
    bad_frame,  // `error` says what was wrong; the bytes were dropped
    too_large,  // a body over the limit was skipped; `error` says so, `body` holds its start
  };
  Kind kind = Kind::message;
  std::string body;
  std::string error;
};

class MessageReader {
 public:
  // Bodies over max_body_bytes are skipped as they arrive, never held in memory.
  explicit MessageReader(std::size_t max_body_bytes);

  void feed(std::string_view bytes);
  // The next complete frame, or nullopt when more bytes are needed.
  std::optional<Frame> next();
  // Re-reads part of a body whose JSON was malformed but which holds the start of another
  // message (a Content-Length that was too large swallowed it): frames resume there.
  void resync_within(std::string_view malformed_body);

  static constexpr std::size_t kMaxHeaderBytes = 8192;
  static constexpr std::size_t kKeptPrefixBytes = 4096;  // of a skipped body, to find its id

 private:
  std::optional<Frame> parse_header();

  std::size_t max_body_bytes_;
  std::string buffer_;
  std::size_t skip_remaining_ = 0;  // bytes of an oversized body still to drop
  bool in_body_ = false;
  std::size_t body_length_ = 0;
};

// Writes one framed message.
std::string frame_message(std::string_view body);

}  // namespace hone::lsp
