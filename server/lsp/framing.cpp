// lsp/framing.cpp: Content-Length header parsing, body assembly, oversized-body skipping, the
// nesting bound, resync.
#include "lsp/framing.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace hone::lsp {
namespace {

constexpr std::string_view kHeaderEnd = "\r\n\r\n";
constexpr std::string_view kLengthName = "content-length:";

std::size_t find_ci(std::string_view haystack, std::string_view lower_needle, std::size_t from = 0) {
  if (lower_needle.size() > haystack.size()) return std::string_view::npos;
  for (std::size_t i = from; i + lower_needle.size() <= haystack.size(); ++i) {
    bool match = true;
    for (std::size_t j = 0; j < lower_needle.size(); ++j) {
      if (std::tolower(static_cast<unsigned char>(haystack[i + j])) != lower_needle[j]) {
        match = false;
        break;
      }
    }
    if (match) return i;
  }
  return std::string_view::npos;
}

// True when `text` is whole "Name: value" lines (the headers before Content-Length), or empty.
bool is_header_lines(std::string_view text) {
  while (!text.empty()) {
    std::size_t eol = text.find("\r\n");
    if (eol == std::string_view::npos || eol == 0) return false;
    if (text.substr(0, eol).find(':') == std::string_view::npos) return false;
    text.remove_prefix(eol + 2);
  }
  return true;
}

Frame bad(std::string error) { return Frame{Frame::Kind::bad_frame, {}, std::move(error)}; }

// Of the bytes an oversized body drops, this many are kept to find a header split across reads.
constexpr std::size_t kSkippedTailBytes = 64;

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Where a message header starts in `bytes`: "Content-Length:", a number and the line's end. A
// JSON body cannot hold this (a raw line break may not sit in a string, and the name is no JSON
// outside one), so finding it inside a body means its Content-Length claimed too much.
std::size_t find_message_header(std::string_view bytes) {
  for (std::size_t at = find_ci(bytes, kLengthName); at != std::string_view::npos;
       at = find_ci(bytes, kLengthName, at + 1)) {
    std::size_t i = at + kLengthName.size();
    while (i < bytes.size() && is_blank(bytes[i])) ++i;
    const std::size_t digits = i;
    while (i < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[i]))) ++i;
    if (i == digits) continue;
    while (i < bytes.size() && is_blank(bytes[i])) ++i;
    if (bytes.substr(i, 2) == "\r\n") return at;
  }
  return std::string_view::npos;
}

std::string last_bytes(std::string_view bytes, std::size_t n) {
  return std::string(bytes.substr(bytes.size() - std::min(n, bytes.size())));
}

}  // namespace

MessageReader::MessageReader(std::size_t max_body_bytes) : max_body_bytes_(max_body_bytes) {}

void MessageReader::feed(std::string_view bytes) {
  if (skip_remaining_ > 0) {
    const std::size_t dropped = std::min(skip_remaining_, bytes.size());
    const std::string window = skipped_tail_ + std::string(bytes.substr(0, dropped));
    bytes.remove_prefix(dropped);
    const std::size_t header = find_message_header(window);
    if (header != std::string::npos) {
      // The oversized body was shorter than its Content-Length: read on from the next header.
      skip_remaining_ = 0;
      buffer_.append(window, header);
    } else {
      skip_remaining_ -= dropped;
    }
    skipped_tail_ = skip_remaining_ > 0 ? last_bytes(window, kSkippedTailBytes) : std::string();
  }
  buffer_.append(bytes);
}

std::optional<Frame> MessageReader::next() {
  if (skip_remaining_ > 0) return std::nullopt;
  if (!in_body_) return parse_header();
  if (body_length_ > max_body_bytes_) return skip_oversized_body();
  if (buffer_.size() < body_length_) return std::nullopt;
  Frame frame{Frame::Kind::message, buffer_.substr(0, body_length_), {}};
  buffer_.erase(0, body_length_);
  in_body_ = false;
  if (nests_deeper_than(frame.body, kMaxNesting)) {
    frame.kind = Frame::Kind::too_deep;
    frame.body.resize(std::min(frame.body.size(), kKeptPrefixBytes));
    frame.error = "message nests arrays and objects deeper than " + std::to_string(kMaxNesting) +
                  " levels; skipped (send flatter params)";
  }
  return frame;
}

std::optional<Frame> MessageReader::skip_oversized_body() {
  std::string error = "message of " + std::to_string(body_length_) + " bytes exceeds the limit of " +
                      std::to_string(max_body_bytes_) + " bytes (hone-server --max-message-mb); skipped";
  const std::string_view arrived = std::string_view(buffer_).substr(0, std::min(buffer_.size(), body_length_));
  const std::size_t header = find_message_header(arrived);
  if (header != std::string_view::npos) {
    Frame frame{Frame::Kind::too_large, buffer_.substr(0, std::min(header, kKeptPrefixBytes)),
                error + "; its body ended after " + std::to_string(header) + " bytes, at the next message's header"};
    buffer_.erase(0, header);
    in_body_ = false;
    return frame;
  }
  if (buffer_.size() < std::min(body_length_, kKeptPrefixBytes)) return std::nullopt;
  Frame frame{Frame::Kind::too_large, buffer_.substr(0, std::min(body_length_, kKeptPrefixBytes)), std::move(error)};
  skip_remaining_ = body_length_ - arrived.size();
  skipped_tail_ = skip_remaining_ > 0 ? last_bytes(arrived, kSkippedTailBytes) : std::string();
  buffer_.erase(0, arrived.size());
  in_body_ = false;
  return frame;
}

std::optional<Frame> MessageReader::parse_header() {
  std::size_t end = buffer_.find(kHeaderEnd);
  std::size_t length_at = find_ci(buffer_, kLengthName);
  if (length_at != std::string::npos && (end == std::string::npos || length_at < end) &&
      !is_header_lines(std::string_view(buffer_).substr(0, length_at))) {
    // Junk before a header: the tail of a body whose Content-Length was too small, stray text.
    buffer_.erase(0, length_at);
    return bad("dropped " + std::to_string(length_at) + " bytes of junk before a message header");
  }
  if (end == std::string::npos) {
    if (buffer_.size() <= kMaxHeaderBytes) return std::nullopt;
    std::size_t resume = find_ci(buffer_, kLengthName, 1);
    std::size_t drop = resume == std::string::npos ? buffer_.size() - kLengthName.size() : resume;
    buffer_.erase(0, drop);
    return bad("no message header end within " + std::to_string(kMaxHeaderBytes) +
               " bytes; dropped " + std::to_string(drop) + " bytes");
  }
  std::string_view headers(buffer_.data(), end);
  std::optional<std::size_t> length;
  std::string problem;
  std::size_t at = find_ci(headers, kLengthName);
  if (at == std::string_view::npos) {
    problem = "message header without Content-Length";
  } else {
    std::string_view value = headers.substr(at + kLengthName.size());
    value = value.substr(0, value.find("\r\n"));
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    std::size_t parsed = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (value.empty() || ec != std::errc{} || ptr != value.data() + value.size()) {
      problem = "bad Content-Length value '" + std::string(value.substr(0, 40)) + "'";
    } else {
      length = parsed;
    }
  }
  buffer_.erase(0, end + kHeaderEnd.size());
  if (!length) return bad(problem);
  in_body_ = true;
  body_length_ = *length;
  return next();
}

void MessageReader::resync_within(std::string_view malformed_body) {
  std::size_t at = find_ci(malformed_body, kLengthName, 1);
  if (at == std::string_view::npos || in_body_ || skip_remaining_ > 0) return;
  buffer_.insert(0, malformed_body.substr(at));
}

bool nests_deeper_than(std::string_view json_text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : json_text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string frame_message(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace hone::lsp
