// lsp/framing.h: the base protocol's Content-Length framing, as a pure byte-stream parser that
// never fails hard: bad headers, oversized or too deeply nested bodies and junk between messages
// become Frame errors and the parser resynchronises on the next header. Used by the transport's
// reader thread and by the fuzzer.
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
    too_deep,   // a body nesting arrays/objects deeper than kMaxNesting; `body` holds its start
  };
  Kind kind = Kind::message;
  std::string body;
  std::string error;
};

class MessageReader {
 public:
  // Bodies over max_body_bytes are skipped as they arrive, never held in memory; when such a
  // body turns out shorter than its Content-Length (the next message's header appears inside it),
  // reading resumes at that header.
  explicit MessageReader(std::size_t max_body_bytes);

  void feed(std::string_view bytes);
  // The next complete frame, or nullopt when more bytes are needed.
  std::optional<Frame> next();
  // Re-reads part of a body whose JSON was malformed but which holds the start of another
  // message (a Content-Length that was too large swallowed it): frames resume there.
  void resync_within(std::string_view malformed_body);

  static constexpr std::size_t kMaxHeaderBytes = 8192;
  static constexpr std::size_t kKeptPrefixBytes = 4096;  // of a skipped body, to find its id
  // Deeper JSON would overflow the stack of the recursive JSON code downstream (copies, dumps).
  static constexpr std::size_t kMaxNesting = 512;

 private:
  std::optional<Frame> parse_header();
  std::optional<Frame> skip_oversized_body();

  std::size_t max_body_bytes_;
  std::string buffer_;
  std::size_t skip_remaining_ = 0;  // bytes of an oversized body still to drop
  std::string skipped_tail_;        // the last dropped bytes, for a header split across reads
  bool in_body_ = false;
  std::size_t body_length_ = 0;
};

// Whether a JSON text nests arrays and objects deeper than `limit` (brackets inside strings do
// not count); one pass, no parsing.
bool nests_deeper_than(std::string_view json_text, std::size_t limit);

// Writes one framed message.
std::string frame_message(std::string_view body);

}  // namespace hone::lsp
