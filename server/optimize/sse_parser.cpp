// optimize/sse_parser.cpp: line splitting and field handling of the event-stream format.
#include "optimize/sse_parser.h"

namespace hone {

void SseParser::feed(std::string_view bytes) {
  for (char ch : bytes) {
    if (ch == '\n' && last_was_cr_) {  // the \n of a \r\n pair: the line was taken at the \r
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = (ch == '\r');
    if (ch == '\n' || ch == '\r') {
      take_line(line_);
      line_.clear();
    } else {
      line_.push_back(ch);
    }
  }
}

void SseParser::take_line(std::string_view line) {
  if (line.empty()) {
    if (has_data_) {
      SseEvent ev{event_, data_, id_};
      on_event_(ev);
    }
    has_data_ = false;
    data_.clear();
    event_.clear();
    return;
  }
  if (line.front() == ':') {
    ++comments_;
    return;
  }
  std::string_view field = line, value;
  if (auto colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    event_ = value;
  } else if (field == "id") {
    id_ = value;
  }
  // "retry" and unknown fields are ignored: reconnection is the client's own retry policy.
}

}  // namespace hone
