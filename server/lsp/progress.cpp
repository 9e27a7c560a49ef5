// lsp/progress.cpp: WorkDoneProgress transitions (none, creating, live, done) and their messages.
#include "lsp/progress.h"

namespace hone::lsp {

using nlohmann::json;

WorkDoneProgress::WorkDoneProgress(Dispatcher& dispatcher, std::string title)
    : dispatcher_(dispatcher), title_(std::move(title)) {}

std::shared_ptr<WorkDoneProgress> WorkDoneProgress::start(Dispatcher& dispatcher, std::string title,
                                                          std::optional<json> client_token,
                                                          bool client_supports_create, std::string server_token) {
  auto progress = std::make_shared<WorkDoneProgress>(dispatcher, std::move(title));
  std::unique_lock lock(progress->mutex_);
  if (client_token) {
    progress->token_ = *client_token;
    progress->state_ = State::live;
    progress->send_begin_locked();
    return progress;
  }
  if (!client_supports_create) return progress;
  progress->token_ = server_token;
  progress->state_ = State::creating;
  lock.unlock();
  // The reply arrives on the reader thread; by then the job may have ended.
  std::weak_ptr<WorkDoneProgress> weak = progress;
  dispatcher.call("window/workDoneProgress/create", {{"token", server_token}},
                  [weak](const json&, const RpcError* error) {
                    auto self = weak.lock();
                    if (!self) return;
                    std::lock_guard lock(self->mutex_);
                    if (self->state_ != State::creating) return;
                    if (error) {
                      self->state_ = State::none;
                      return;
                    }
                    self->state_ = State::live;
                    self->send_begin_locked();
                  });
  return progress;
}

void WorkDoneProgress::send_begin_locked() {
  json value = {{"kind", "begin"}, {"title", title_}, {"cancellable", true}};
  if (!last_message_.empty()) value["message"] = last_message_;
  if (last_percentage_) value["percentage"] = *last_percentage_;
  dispatcher_.notify("$/progress", {{"token", token_}, {"value", value}});
}

void WorkDoneProgress::report(const std::string& message, std::optional<int> percentage) {
  std::lock_guard lock(mutex_);
  last_message_ = message;
  if (percentage) last_percentage_ = percentage;
  if (state_ != State::live) return;
  json value = {{"kind", "report"}, {"message", message}};
  if (last_percentage_) value["percentage"] = *last_percentage_;
  dispatcher_.notify("$/progress", {{"token", token_}, {"value", value}});
}

void WorkDoneProgress::end(const std::string& message) {
  std::lock_guard lock(mutex_);
  bool was_live = state_ == State::live;
  state_ = State::done;
  if (!was_live) return;
  dispatcher_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "end"}, {"message", message}}}});
}

json WorkDoneProgress::token() const {
  std::lock_guard lock(mutex_);
  return state_ == State::none ? json() : token_;
}

WorkDoneProgress::State WorkDoneProgress::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

}  // namespace hone::lsp
