// lsp/dispatcher.h: JSON-RPC 2.0 over a transport: a typed table of request and notification
// handlers (bad params -> InvalidParams, unknown -> MethodNotFound), replies sent exactly once
// (Reply), $/cancelRequest turned into stop tokens, and the server's own outgoing requests with
// their response callbacks. Knows JSON-RPC, not LSP's methods.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>

namespace hone::lsp {

namespace rpc {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestFailed = -32803;
constexpr int kRequestCancelled = -32800;
}  // namespace rpc

struct RpcError {
  int code = rpc::kInternalError;
  std::string message;
};

// Sends one JSON-RPC message; thread-safe (FdTransport::send).
using SendFn = std::function<void(const nlohmann::json&)>;

// The answer to one request. Copies share one state: the first call sends, later calls are
// dropped (and logged); if every copy is destroyed without a call, an internal error is sent.
// Any thread.
class Reply {
 public:
  Reply(nlohmann::json id, std::string method, SendFn send, std::function<void()> on_sent);
  void operator()(nlohmann::json result) const;
  void error(RpcError error) const;
  const std::string& method() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

class Dispatcher {
 public:
  using RequestHandler = std::function<void(const nlohmann::json& params, Reply, std::stop_token)>;
  using NotificationHandler = std::function<void(const nlohmann::json& params)>;
  using ResponseHandler = std::function<void(const nlohmann::json& result, const RpcError* error)>;

  Dispatcher(SendFn send, std::function<void(const std::string&)> log);

  // Registration, before messages flow. Typed forms parse params with nlohmann's from_json;
  // a failure answers InvalidParams naming what was wrong, as does a JSON type error thrown by
  // a request handler that reads its params itself (one that has not replied yet).
  void request(const std::string& method, RequestHandler handler);
  void notification(const std::string& method, NotificationHandler handler);
  template <typename Params>
  void request(const std::string& method, std::function<void(const Params&, Reply, std::stop_token)> h) {
    request(method, [this, method, h](const nlohmann::json& params, Reply reply, std::stop_token stop) {
      Params parsed;
      if (!parse_params(method, params, parsed, &reply)) return;
      h(parsed, std::move(reply), stop);
    });
  }
  template <typename Params>
  void notification(const std::string& method, std::function<void(const Params&)> h) {
    notification(method, [this, method, h](const nlohmann::json& params) {
      Params parsed;
      if (parse_params(method, params, parsed, nullptr)) h(parsed);
    });
  }

  // Reader thread: one incoming message (request, notification or response).
  void dispatch(const nlohmann::json& message);
  // Reader thread: answers a request with an error without running its handler.
  void reject(const nlohmann::json& message, RpcError error);

  // Any thread: a request from the server to the client; `on_response` runs on the reader thread.
  void call(const std::string& method, nlohmann::json params, ResponseHandler on_response);
  void notify(const std::string& method, nlohmann::json params);

  // What kind of message this is, for the server's lifecycle checks.
  static bool is_request(const nlohmann::json& message);
  static bool is_notification(const nlohmann::json& message);

 private:
  template <typename Params>
  bool parse_params(const std::string& method, const nlohmann::json& params, Params& out, Reply* reply) {
    try {
      out = params.get<Params>();
      return true;
    } catch (const nlohmann::json::exception& e) {
      invalid_params(method, e.what(), reply);
      return false;
    }
  }
  void invalid_params(const std::string& method, const std::string& what, Reply* reply);
  void cancel_request(const nlohmann::json& params);

  SendFn send_;
  std::function<void(const std::string&)> log_;
  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, NotificationHandler> notifications_;
  std::mutex mutex_;
  std::map<std::string, std::stop_source> in_flight_;  // by id.dump()
  std::map<std::string, ResponseHandler> outgoing_;    // by id.dump()
  std::atomic<long> next_call_id_{1};
};

}  // namespace hone::lsp
