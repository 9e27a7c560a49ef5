// lsp/dispatcher.cpp: message classification, the handler table, reply-once state, cancellation.
#include "lsp/dispatcher.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

json error_body(const RpcError& error) { return {{"code", error.code}, {"message", error.message}}; }

bool valid_id(const json& id) { return id.is_number_integer() || id.is_string(); }

}  // namespace

struct Reply::State {
  json id;
  std::string method;
  SendFn send;
  std::function<void()> on_sent;
  std::atomic<bool> sent{false};

  bool claim() {
    bool expected = false;
    return sent.compare_exchange_strong(expected, true);
  }
  void deliver(json message) {
    send(message);
    if (on_sent) on_sent();
  }
  ~State() {
    if (!sent) {
      deliver({{"jsonrpc", "2.0"}, {"id", id},
               {"error", error_body({rpc::kInternalError, "server did not reply to " + method})}});
    }
  }
};

Reply::Reply(json id, std::string method, SendFn send, std::function<void()> on_sent)
    : state_(std::make_shared<State>()) {
  state_->id = std::move(id);
  state_->method = std::move(method);
  state_->send = std::move(send);
  state_->on_sent = std::move(on_sent);
}

void Reply::operator()(json result) const {
  if (!state_->claim()) return;
  state_->deliver({{"jsonrpc", "2.0"}, {"id", state_->id}, {"result", std::move(result)}});
}

void Reply::error(RpcError error) const {
  if (!state_->claim()) return;
  state_->deliver({{"jsonrpc", "2.0"}, {"id", state_->id}, {"error", error_body(error)}});
}

const std::string& Reply::method() const { return state_->method; }

Dispatcher::Dispatcher(SendFn send, std::function<void(const std::string&)> log)
    : send_(std::move(send)), log_(std::move(log)) {}

void Dispatcher::request(const std::string& method, RequestHandler handler) {
  requests_[method] = std::move(handler);
}

void Dispatcher::notification(const std::string& method, NotificationHandler handler) {
  notifications_[method] = std::move(handler);
}

bool Dispatcher::is_request(const json& message) {
  return message.is_object() && message.contains("method") && message.contains("id");
}

bool Dispatcher::is_notification(const json& message) {
  return message.is_object() && message.contains("method") && !message.contains("id");
}

void Dispatcher::reject(const json& message, RpcError error) {
  json id = message.is_object() && message.contains("id") && valid_id(message["id"]) ? message["id"] : json();
  send_({{"jsonrpc", "2.0"}, {"id", id}, {"error", error_body(error)}});
}

void Dispatcher::dispatch(const json& message) {
  if (!message.is_object()) {
    reject(message, {rpc::kInvalidRequest, "a JSON-RPC message must be an object"});
    return;
  }
  auto method = message.find("method");
  auto id = message.find("id");
  if (method == message.end()) {
    // A response to one of our calls.
    if (id == message.end() || !valid_id(*id)) {
      reject(message, {rpc::kInvalidRequest, "message has neither a method nor a valid id"});
      return;
    }
    ResponseHandler handler;
    {
      std::lock_guard lock(mutex_);
      auto found = outgoing_.find(id->dump());
      if (found == outgoing_.end()) {
        log_("response to unknown request id " + id->dump() + " dropped");
        return;
      }
      handler = std::move(found->second);
      outgoing_.erase(found);
    }
    json result = message.value("result", json());
    if (message.contains("error")) {
      const json& e = message["error"];
      RpcError error{e.is_object() ? e.value("code", rpc::kInternalError) : rpc::kInternalError,
                     e.is_object() ? e.value("message", std::string()) : e.dump()};
      handler(result, &error);
    } else {
      handler(result, nullptr);
    }
    return;
  }
  if (!method->is_string() || (id != message.end() && !valid_id(*id)) ||
      (message.contains("params") && !message["params"].is_structured() && !message["params"].is_null())) {
    reject(message, {rpc::kInvalidRequest, "invalid JSON-RPC message (method, id or params)"});
    return;
  }
  const std::string name = method->get<std::string>();
  json params = message.contains("params") && !message["params"].is_null() ? message["params"] : json::object();
  if (id == message.end()) {
    if (name == "$/cancelRequest") {
      cancel_request(params);
      return;
    }
    auto handler = notifications_.find(name);
    if (handler != notifications_.end()) {
      handler->second(params);
    } else if (name.rfind("$/", 0) != 0) {
      log_("notification " + name + " has no handler; dropped");
    }
    return;
  }
  auto handler = requests_.find(name);
  if (handler == requests_.end()) {
    reject(message, {rpc::kMethodNotFound, "method not found: " + name});
    return;
  }
  std::string key = id->dump();
  std::stop_source stop;
  {
    std::lock_guard lock(mutex_);
    in_flight_[key] = stop;
  }
  Reply reply(*id, name, send_, [this, key] {
    std::lock_guard lock(mutex_);
    in_flight_.erase(key);
  });
  try {
    handler->second(params, reply, stop.get_token());
  } catch (const json::exception& e) {
    // A handler reading a nested field of the wrong type (an untyped handler's params).
    invalid_params(name, e.what(), &reply);
  }
}

void Dispatcher::cancel_request(const json& params) {
  if (!params.is_object() || !params.contains("id") || !valid_id(params["id"])) return;
  std::stop_source stop;
  {
    std::lock_guard lock(mutex_);
    auto found = in_flight_.find(params["id"].dump());
    if (found == in_flight_.end()) return;
    stop = found->second;
  }
  stop.request_stop();
}

void Dispatcher::invalid_params(const std::string& method, const std::string& what, Reply* reply) {
  std::string message = "invalid params for " + method + ": " + what;
  if (reply) {
    reply->error({rpc::kInvalidParams, message});
  } else {
    log_(message);
  }
}

void Dispatcher::call(const std::string& method, json params, ResponseHandler on_response) {
  json id = "hone-" + std::to_string(next_call_id_++);
  {
    std::lock_guard lock(mutex_);
    outgoing_[id.dump()] = std::move(on_response);
  }
  json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  send_(message);
}

void Dispatcher::notify(const std::string& method, json params) {
  json message = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  send_(message);
}

}  // namespace hone::lsp
