// tests/lsp/lsp_client.h: an in-process LSP client for tests: runs a HoneLspServer on its own
// thread over real pipes, sends requests and notifications, collects notifications and the
// server's requests (answered automatically), and sync()s with hone/waitIdle instead of sleeping.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "lsp/lsp_server.h"

namespace hone::lsp::test {

// Server options for tests that want every edit and refresh at once (no debounce).
inline ServerOptions quiet_options() {
  ServerOptions options;
  options.change_debounce = std::chrono::milliseconds(0);
  options.refresh_debounce = std::chrono::milliseconds(0);
  return options;
}

class LspClient {
 public:
  explicit LspClient(ServerOptions options, std::size_t max_message_bytes = FdTransport::kDefaultMaxMessageBytes);
  ~LspClient();

  // Sends a request and waits for its response (the whole message: result or error).
  nlohmann::json call(const std::string& method, nlohmann::json params);
  // Sends a request and returns its id; take the response later with response().
  nlohmann::json send_request(const std::string& method, nlohmann::json params);
  nlohmann::json response(const nlohmann::json& id);
  void notify(const std::string& method, nlohmann::json params);
  void send_raw(const std::string& bytes);

  // initialize with the given client capabilities, then initialized.
  nlohmann::json initialize(nlohmann::json capabilities = nlohmann::json::object());
  // Waits until the server has no job waiting or running (hone/waitIdle).
  void sync();
  // Notifications (and server->client requests) received so far with that method; removes them.
  std::vector<nlohmann::json> take(const std::string& method);
  // Waits until a notification (or server request) with that method satisfying `match` has
  // arrived (it stays queued for take()); false after the timeout.
  bool wait_for(const std::string& method, const std::function<bool(const nlohmann::json&)>& match);
  // Responses that arrived with a null id (answers to unparseable input).
  std::vector<nlohmann::json> take_null_id_responses();
  // shutdown + exit; returns the server's exit code.
  int stop();

 private:
  void read_loop();

  int to_server_[2]{-1, -1};
  int from_server_[2]{-1, -1};
  std::unique_ptr<FdTransport> transport_;
  std::unique_ptr<HoneLspServer> server_;
  std::thread server_thread_;
  std::thread reader_thread_;
  int exit_code_ = -1;
  bool stopped_ = false;

  std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable changed_;
  long next_id_ = 1;
  std::map<std::string, nlohmann::json> responses_;  // by id.dump()
  std::vector<nlohmann::json> notifications_;
  std::vector<nlohmann::json> null_id_responses_;
  bool server_closed_ = false;
};

}  // namespace hone::lsp::test
