// lsp/framing.cpp: Content-Length header parsing, body assembly, oversized-body skipping, resync.
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

}  // namespace

MessageReader::MessageReader(std::size_t max_body_bytes) : max_body_bytes_(max_body_bytes) {}

void MessageReader::feed(std::string_view bytes) {
  if (skip_remaining_ > 0) {
    std::size_t dropped = std::min(skip_remaining_, bytes.size());
    skip_remaining_ -= dropped;
    bytes.remove_prefix(dropped);
  }
  buffer_.append(bytes);
}

std::optional<Frame> MessageReader::next() {
  if (skip_remaining_ > 0) return std::nullopt;
  if (!in_body_) return parse_header();
  if (body_length_ > max_body_bytes_) {
    std::size_t keep = std::min(body_length_, kKeptPrefixBytes);
    if (buffer_.size() < keep) return std::nullopt;
    Frame frame{Frame::Kind::too_large, buffer_.substr(0, keep),
                "message of " + std::to_string(body_length_) + " bytes exceeds the limit of " +
                    std::to_string(max_body_bytes_) + " bytes; skipped"};
    std::size_t available = std::min(buffer_.size(), body_length_);
    buffer_.erase(0, available);
    skip_remaining_ = body_length_ - available;
    in_body_ = false;
    return frame;
  }
  if (buffer_.size() < body_length_) return std::nullopt;
  Frame frame{Frame::Kind::message, buffer_.substr(0, body_length_), {}};
  buffer_.erase(0, body_length_);
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

std::string frame_message(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace hone::lsp
