// lsp/transport.cpp: the read loop (bytes -> frames -> JSON) and the locked writer.
#include "lsp/transport.h"

#include <cerrno>
#include <regex>
#include <unistd.h>

#include "lsp/framing.h"

namespace hone::lsp {

FdTransport::FdTransport(int in_fd, int out_fd, std::size_t max_message_bytes)
    : in_fd_(in_fd), out_fd_(out_fd), max_message_bytes_(max_message_bytes) {}

bool FdTransport::send(const nlohmann::json& message) {
  std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard lock(write_mutex_);
  if (peer_gone_) return false;
  if (!write_all(frame_message(body))) peer_gone_ = true;
  return !peer_gone_;
}

bool FdTransport::write_all(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(out_fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void FdTransport::run(MessageSink& sink) {
  MessageReader reader(max_message_bytes_);
  std::string chunk(1u << 16, '\0');
  while (!stopping_) {
    ssize_t n = ::read(in_fd_, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
    while (!stopping_) {
      auto frame = reader.next();
      if (!frame) break;
      switch (frame->kind) {
        case Frame::Kind::bad_frame:
          sink.on_bad_input(-32700, frame->error, nullptr);
          break;
        case Frame::Kind::too_large:
          sink.on_bad_input(-32600, frame->error, sniff_request_id(frame->body));
          break;
        case Frame::Kind::too_deep:
          sink.on_bad_input(-32700, frame->error, sniff_request_id(frame->body));
          break;
        case Frame::Kind::message: {
          nlohmann::json message;
          try {
            message = nlohmann::json::parse(frame->body);
          } catch (const nlohmann::json::parse_error& e) {
            sink.on_bad_input(-32700, std::string("malformed JSON: ") + e.what(), nullptr);
            reader.resync_within(frame->body);
            break;
          }
          sink.on_message(std::move(message));
          break;
        }
      }
    }
  }
}

nlohmann::json sniff_request_id(const std::string& body_prefix) {
  std::string head = body_prefix.substr(0, body_prefix.find("\"params\""));
  static const std::regex id_pattern(R"re("id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*"))re");
  std::smatch match;
  if (!std::regex_search(head, match, id_pattern)) return nullptr;
  try {
    return nlohmann::json::parse(match[1].str());
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

}  // namespace hone::lsp
