// lsp/transport.h: moves JSON-RPC messages over a pair of file descriptors (stdin/stdout for
// hone-server, pipes in tests) with Content-Length framing, and nothing else: bytes in, parsed
// JSON or an input error out; JSON in, framed bytes out.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace hone::lsp {

// What the reader hands on. Called on the reader thread, one call at a time.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void on_message(nlohmann::json message) = 0;
  // Input that is not a message: `code` is the JSON-RPC error code the spec names (-32700 parse
  // error, -32600 invalid request); `id` is the request's id when it could be recovered, else null.
  virtual void on_bad_input(int code, const std::string& message, const nlohmann::json& id) = 0;
};

class FdTransport {
 public:
  static constexpr std::size_t kDefaultMaxMessageBytes = 64u << 20;

  // The descriptors stay owned by the caller.
  FdTransport(int in_fd, int out_fd, std::size_t max_message_bytes = kDefaultMaxMessageBytes);

  // Any thread: frames and writes one message (whole, never interleaved with another). Strings
  // with invalid UTF-8 are written with replacement characters. Returns false once the peer is
  // gone (write error); later sends are dropped.
  bool send(const nlohmann::json& message);

  // The reader thread: reads until end of input or stop(), handing each message to `sink`.
  void run(MessageSink& sink);

  // Any thread: makes run() return at its next read (after the peer closes or sends more).
  void stop() { stopping_ = true; }

 private:
  bool write_all(const std::string& bytes);

  int in_fd_;
  int out_fd_;
  std::size_t max_message_bytes_;
  std::mutex write_mutex_;
  bool peer_gone_ = false;
  std::atomic<bool> stopping_{false};
};

// The id of a request whose body could not be parsed whole (an oversized message), found in the
// text before its params: a number or a string, else null.
nlohmann::json sniff_request_id(const std::string& body_prefix);

}  // namespace hone::lsp
