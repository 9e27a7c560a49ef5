// tests/lsp/lsp_client.cpp: the in-process test client's pipes, reader thread and waits.
#include "lsp_client.h"

#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "lsp/framing.h"

namespace hone::lsp::test {

using nlohmann::json;

namespace {
constexpr auto kTimeout = std::chrono::seconds(240);
}

LspClient::LspClient(ServerOptions options, std::size_t max_message_bytes) {
  if (::pipe(to_server_) != 0 || ::pipe(from_server_) != 0) throw std::runtime_error("pipe failed");
  transport_ = std::make_unique<FdTransport>(to_server_[0], from_server_[1], max_message_bytes);
  server_ = std::make_unique<HoneLspServer>(*transport_, std::move(options));
  server_thread_ = std::thread([this] {
    exit_code_ = server_->run();
    server_.reset();  // joins the jobs, as the process would at exit
    ::close(from_server_[1]);
  });
  reader_thread_ = std::thread([this] { read_loop(); });
}

LspClient::~LspClient() {
  if (!stopped_) {
    try {
      stop();
    } catch (const std::exception&) {
      // The server is already gone (a test sent exit itself).
    }
  }
  ::close(to_server_[1]);
  if (server_thread_.joinable()) server_thread_.join();
  if (reader_thread_.joinable()) reader_thread_.join();
  ::close(to_server_[0]);
  ::close(from_server_[0]);
}

void LspClient::read_loop() {
  MessageReader reader(1u << 30);
  char buffer[65536];
  while (true) {
    ssize_t n = ::read(from_server_[0], buffer, sizeof buffer);
    if (n <= 0) break;
    reader.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
    while (auto frame = reader.next()) {
      json message = json::parse(frame->body);
      std::lock_guard lock(mutex_);
      if (message.contains("method")) {
        notifications_.push_back(message);
        if (message.contains("id")) {
          // A request from the server (progress create, refresh): accept it.
          std::string reply = json{{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", nullptr}}.dump();
          std::lock_guard write_lock(write_mutex_);
          std::string framed = frame_message(reply);
          if (::write(to_server_[1], framed.data(), framed.size()) < 0) break;
        }
      } else if (message["id"].is_null()) {
        null_id_responses_.push_back(message);
      } else {
        responses_[message["id"].dump()] = message;
      }
      changed_.notify_all();
    }
  }
  std::lock_guard lock(mutex_);
  server_closed_ = true;
  changed_.notify_all();
}

void LspClient::send_raw(const std::string& bytes) {
  std::lock_guard lock(write_mutex_);  // one writer at a time with the reader's auto-replies
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(to_server_[1], bytes.data() + done, bytes.size() - done);
    if (n <= 0) throw std::runtime_error("write to server failed");
    done += static_cast<std::size_t>(n);
  }
}

json LspClient::send_request(const std::string& method, json params) {
  json id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
  }
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  send_raw(frame_message(message.dump()));
  return id;
}

json LspClient::response(const json& id) {
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, kTimeout, [&] { return responses_.count(id.dump()) || server_closed_; }) ||
      !responses_.count(id.dump())) {
    throw std::runtime_error("no response to request " + id.dump());
  }
  json out = responses_[id.dump()];
  responses_.erase(id.dump());
  return out;
}

json LspClient::call(const std::string& method, json params) { return response(send_request(method, std::move(params))); }

void LspClient::notify(const std::string& method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
  send_raw(frame_message(message.dump()));
}

json LspClient::initialize(json capabilities) {
  json reply = call("initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", std::move(capabilities)}});
  notify("initialized", json::object());
  return reply;
}

void LspClient::sync() {
  json reply = call("hone/waitIdle", json::object());
  if (reply.contains("error")) throw std::runtime_error("hone/waitIdle failed: " + reply.dump());
}

std::vector<json> LspClient::take(const std::string& method) {
  std::lock_guard lock(mutex_);
  std::vector<json> out, rest;
  for (auto& n : notifications_) (n["method"] == method ? out : rest).push_back(n);
  notifications_ = std::move(rest);
  return out;
}

bool LspClient::wait_for(const std::string& method, const std::function<bool(const json&)>& match) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, kTimeout, [&] {
    for (const json& n : notifications_) {
      if (n["method"] == method && match(n)) return true;
    }
    return server_closed_;
  }) && !server_closed_;
}

std::vector<json> LspClient::take_null_id_responses() {
  std::lock_guard lock(mutex_);
  return std::exchange(null_id_responses_, {});
}

int LspClient::stop() {
  stopped_ = true;
  call("shutdown", nullptr);
  notify("exit", nullptr);
  if (server_thread_.joinable()) server_thread_.join();
  return exit_code_;
}

}  // namespace hone::lsp::test
