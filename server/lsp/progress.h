// lsp/progress.h: one job's $/progress as a small state machine: a client token is live at once;
// a server token is created with window/workDoneProgress/create (pending until the client
// answers, then live, or nothing if it refuses); reports keep the latest message so a late
// begin shows it; end closes it. Any thread.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lsp/dispatcher.h"

namespace hone::lsp {

class WorkDoneProgress : public std::enable_shared_from_this<WorkDoneProgress> {
 public:
  enum class State { none, creating, live, done };

  // `client_token`: the request's workDoneToken, if any; otherwise a token named `server_token`
  // is created when the client supports it. Sends begin (or create).
  static std::shared_ptr<WorkDoneProgress> start(Dispatcher& dispatcher, std::string title,
                                                 std::optional<nlohmann::json> client_token,
                                                 bool client_supports_create, std::string server_token);
  WorkDoneProgress(Dispatcher& dispatcher, std::string title);
  WorkDoneProgress(const WorkDoneProgress&) = delete;
  WorkDoneProgress& operator=(const WorkDoneProgress&) = delete;

  void report(const std::string& message, std::optional<int> percentage = std::nullopt);
  void end(const std::string& message);

  // The token in use (null when there is no progress).
  nlohmann::json token() const;
  State state() const;

 private:
  void send_begin_locked();

  Dispatcher& dispatcher_;
  std::string title_;
  nlohmann::json token_;
  mutable std::mutex mutex_;
  State state_ = State::none;
  std::string last_message_;
  std::optional<int> last_percentage_;
};

}  // namespace hone::lsp
