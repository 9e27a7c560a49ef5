// lsp/lsp_server.cpp: the method table, the lifecycle (initialize, shutdown, exit and the errors
// for requests outside it), capabilities, settings and the engine they configure.
#include "lsp/lsp_server.h"

#include <iostream>

namespace hone::lsp {

using nlohmann::json;

namespace {

template <typename P, typename S>
std::function<void(const P&, Reply, std::stop_token)> request_of(S* self, void (S::*method)(const P&, Reply)) {
  return [self, method](const P& params, Reply reply, std::stop_token) { (self->*method)(params, std::move(reply)); };
}

template <typename P, typename S>
std::function<void(const P&)> notification_of(S* self, void (S::*method)(const P&)) {
  return [self, method](const P& params) { (self->*method)(params); };
}

bool capability(const json& capabilities, const char* pointer) {
  json::json_pointer ptr(pointer);
  return capabilities.contains(ptr) && capabilities.at(ptr).is_boolean() && capabilities.at(ptr).get<bool>();
}

std::string string_field(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return {};
  return object[key].get<std::string>();
}

// What is wrong with the shape of initialize's workspace fields (each may be absent or null).
std::string workspace_shape_error(const json& params) {
  for (const char* key : {"rootUri", "rootPath"})
    if (params.contains(key) && !params[key].is_null() && !params[key].is_string())
      return std::string(key) + " must be a string or null";
  if (!params.contains("workspaceFolders") || params["workspaceFolders"].is_null()) return {};
  const json& folders = params["workspaceFolders"];
  if (!folders.is_array()) return "workspaceFolders must be an array of {uri, name} or null";
  for (std::size_t i = 0; i < folders.size(); ++i)
    if (!folders[i].is_object() || !folders[i].contains("uri") || !folders[i]["uri"].is_string())
      return "workspaceFolders[" + std::to_string(i) + "].uri must be a string (a file URI)";
  return {};
}

// The workspace initialize names: rootUri, else the first workspace folder, else the older rootPath.
std::optional<std::filesystem::path> workspace_root(const json& params) {
  std::optional<std::filesystem::path> root;
  std::string uri = string_field(params, "rootUri");
  if (uri.empty() && params.contains("workspaceFolders") && params["workspaceFolders"].is_array() &&
      !params["workspaceFolders"].empty())
    uri = string_field(params["workspaceFolders"][0], "uri");
  if (!uri.empty()) root = path_from_uri(uri);
  const std::string path = string_field(params, "rootPath");
  if (!root && !path.empty() && std::filesystem::path(path).is_absolute()) root = std::filesystem::path(path);
  return root;
}

}  // namespace

HoneLspServer::HoneLspServer(FdTransport& transport, ServerOptions options)
    : transport_(transport),
      options_(std::move(options)),
      dispatcher_([this](const json& message) { transport_.send(message); },
                  [this](const std::string& line) { log(line); }),
      scheduler_(std::make_unique<JobScheduler>(JobScheduler::Options{options_.cpu_workers, options_.job_workers})) {
  bind_methods();
}

HoneLspServer::~HoneLspServer() {
  scheduler_.reset();  // cancels and joins the jobs before the engine and the tables go
}

void HoneLspServer::log(const std::string& line) const { std::cerr << "hone-server: " << line << std::endl; }

void HoneLspServer::bind_methods() {
  auto& d = dispatcher_;
  d.request("initialize", [this](const json& params, Reply reply, std::stop_token) { on_initialize(params, std::move(reply)); });
  d.request("shutdown", [this](const json&, Reply reply, std::stop_token) { on_shutdown(std::move(reply)); });
  d.notification("initialized", [](const json&) {});
  d.notification("exit", [this](const json&) {
    std::lock_guard lock(mutex_);
    exit_requested_ = true;
    transport_.stop();
  });
  d.notification<ConfigurationParams>("workspace/didChangeConfiguration", notification_of(this, &HoneLspServer::on_configuration));
  d.notification<DidOpenParams>("textDocument/didOpen", notification_of(this, &HoneLspServer::on_did_open));
  d.notification<DidChangeParams>("textDocument/didChange", notification_of(this, &HoneLspServer::on_did_change));
  d.notification<DidSaveParams>("textDocument/didSave", notification_of(this, &HoneLspServer::on_did_save));
  d.notification<DidCloseParams>("textDocument/didClose", notification_of(this, &HoneLspServer::on_did_close));
  d.request<DocumentParams>("textDocument/codeLens", request_of(this, &HoneLspServer::on_code_lens));
  d.request<RangeParams>("textDocument/inlayHint", request_of(this, &HoneLspServer::on_inlay_hint));
  d.request<TextDocumentPositionParams>("textDocument/hover", request_of(this, &HoneLspServer::on_hover));
  d.request("textDocument/codeAction", [this](const json& params, Reply reply, std::stop_token) { on_code_action(params, std::move(reply)); });
  d.request("workspace/executeCommand", [this](const json& params, Reply reply, std::stop_token stop) {
    on_execute_command(params, std::move(reply), stop);
  });
  d.request<DocumentParams>("hone/result", request_of(this, &HoneLspServer::on_result));
  d.request<ProposalParams>("hone/proposal", request_of(this, &HoneLspServer::on_proposal));
  for (const char* kind : {"check", "profile", "optimize"}) {
    d.request<JobParams>(std::string("hone/") + kind, [this, kind](const JobParams& params, Reply reply, std::stop_token stop) {
      on_job(kind, params, std::move(reply), stop);
    });
  }
  d.request("hone/waitIdle", [this](const json&, Reply reply, std::stop_token) {
    scheduler_->when_idle([reply] { reply(nullptr); });
  });
  d.notification<WorkDoneProgressCancelParams>("window/workDoneProgress/cancel",
                                               notification_of(this, &HoneLspServer::on_progress_cancel));
}

int HoneLspServer::run() {
  transport_.run(*this);
  std::lock_guard lock(mutex_);
  return exit_requested_ && lifecycle_ == Lifecycle::shut_down ? 0 : 1;
}

void HoneLspServer::on_message(json message) {
  Lifecycle state;
  {
    std::lock_guard lock(mutex_);
    state = lifecycle_;
  }
  bool request = Dispatcher::is_request(message);
  bool notification = Dispatcher::is_notification(message);
  const std::string method = (request || notification) && message["method"].is_string() ? message["method"].get<std::string>() : "";
  if (state == Lifecycle::uninitialized && method != "initialize" && method != "exit") {
    if (request) dispatcher_.reject(message, {rpc::kServerNotInitialized, "server not initialized: send initialize first"});
    if (request || notification) return;
  }
  if (state == Lifecycle::shut_down && method != "exit") {
    if (request) dispatcher_.reject(message, {rpc::kInvalidRequest, "server is shut down: only exit is accepted"});
    if (request || notification) return;
  }
  try {
    dispatcher_.dispatch(message);
  } catch (const std::exception& e) {
    // A handler bug must not take the server down; the request (if any) is answered by Reply.
    log(std::string("handler for ") + (method.empty() ? "a message" : method) + " failed: " + e.what());
  }
}

void HoneLspServer::on_bad_input(int code, const std::string& message, const json& id) {
  log(message);
  transport_.send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void HoneLspServer::on_initialize(const json& params, Reply reply) {
  if (!params.is_object()) {
    reply.error({rpc::kInvalidParams, "initialize params must be an object"});
    return;
  }
  if (std::string problem = workspace_shape_error(params); !problem.empty()) {
    reply.error({rpc::kInvalidParams, "invalid params for initialize: " + problem});
    return;
  }
  std::lock_guard lock(mutex_);
  if (lifecycle_ != Lifecycle::uninitialized) {
    reply.error({rpc::kInvalidRequest, "initialize may be sent only once"});
    return;
  }
  const json capabilities = params.value("capabilities", json::object());
  client_creates_progress_ = capability(capabilities, "/window/workDoneProgress");
  client_refreshes_lenses_ = capability(capabilities, "/workspace/codeLens/refreshSupport");
  client_refreshes_hints_ = capability(capabilities, "/workspace/inlayHint/refreshSupport");
  client_shows_documents_ = capability(capabilities, "/window/showDocument/support");
  encoding_ = PositionEncoding::utf16;
  json encodings = capabilities.contains("/general/positionEncodings"_json_pointer)
                       ? capabilities.at("/general/positionEncodings"_json_pointer) : json::array();
  if (encodings.is_array()) {
    for (const json& e : encodings) {
      if (e == "utf-8") encoding_ = PositionEncoding::utf8;
    }
  }
  // A root that is not a folder is no workspace: hone writes .hone/ there and must not create it.
  std::error_code ec;
  if (auto root = workspace_root(params); root && options_.engine.workspace.empty()) {
    if (std::filesystem::is_directory(*root, ec))
      options_.engine.workspace = *root;
    else
      log("the workspace root " + root->string() + " is not a folder; working without a workspace (each kernel's folder holds .hone/)");
  }
  lifecycle_ = Lifecycle::running;
  json options = params.value("initializationOptions", json::object());
  if (options.is_object()) settings_ = options;
  // A client that registers some of hone's commands itself (VS Code's extension) names them, so
  // that its language client does not register them a second time.
  if (options.is_object() && options.contains("clientCommands") && options["clientCommands"].is_array())
    for (const json& c : options["clientCommands"])
      if (c.is_string()) client_commands_.insert(c.get<std::string>());
  json commands = json::array();
  for (const std::string& c : server_commands())
    if (!client_commands_.count(c)) commands.push_back(c);

  json server_capabilities = {
      {"positionEncoding", encoding_ == PositionEncoding::utf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"inlayHintProvider", true},
      {"hoverProvider", true},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite", "source"}}}},
      {"executeCommandProvider", {{"commands", commands}}},
      {"experimental", {{"hone", {{"protocolVersion", 1}}}}},
  };
  reply({{"capabilities", server_capabilities}, {"serverInfo", {{"name", "hone-server"}, {"version", HONE_VERSION}}}});
}

void HoneLspServer::on_shutdown(Reply reply) {
  {
    std::lock_guard lock(mutex_);
    lifecycle_ = Lifecycle::shut_down;
  }
  // Running jobs are cancelled (their requests answer RequestCancelled); the reply waits for them.
  scheduler_->cancel_all();
  scheduler_->when_idle([reply] { reply(nullptr); });
}

void HoneLspServer::on_configuration(const ConfigurationParams& params) {
  json settings = params.settings;
  if (settings.is_object() && settings.contains("hone")) settings = settings["hone"];
  if (!settings.is_object()) return;
  apply_settings(settings);
}

// A change names only what it changes (eglot sends {"settings": {}} on connect): the settings
// merge into those in force (initializationOptions, earlier changes), a null removes one.
void HoneLspServer::apply_settings(const json& settings) {
  std::lock_guard lock(mutex_);
  json previous = settings_;
  settings_.merge_patch(settings);
  // Settings the engine is made with: a change gives later jobs a new engine.
  for (const char* key : {"python", "device", "arch", "sandbox", "seeds", "compileCommands", "gpus"}) {
    if (previous.value(key, json()) != settings_.value(key, json())) {
      engine_.reset();
      break;
    }
  }
}

std::shared_ptr<Engine> HoneLspServer::engine() {
  std::lock_guard lock(mutex_);
  if (engine_) return engine_;
  EngineOptions options = options_.engine;
  if (settings_.contains("python") && settings_["python"].is_string() && !settings_["python"].get<std::string>().empty()) {
    options.python = settings_["python"].get<std::string>();
  }
  if (settings_.contains("device") && settings_["device"].is_string()) {
    if (auto kind = parse_device_kind(settings_["device"].get<std::string>())) options.device = *kind;
  }
  if (settings_.contains("arch") && settings_["arch"].is_string() && !settings_["arch"].get<std::string>().empty()) {
    options.arch = settings_["arch"].get<std::string>();
  }
  if (settings_.contains("seeds") && settings_["seeds"].is_number_integer()) options.seeds = settings_["seeds"].get<int>();
  if (settings_.contains("compileCommands") && settings_["compileCommands"].is_string() &&
      !settings_["compileCommands"].get<std::string>().empty()) {
    std::filesystem::path db = settings_["compileCommands"].get<std::string>();
    options.compile_commands = db.is_absolute() || options.workspace.empty() ? db : options.workspace / db;
  }
  if (settings_.contains("sandbox") && settings_["sandbox"].is_boolean()) options.sandbox = settings_["sandbox"].get<bool>();
  // "gpus": the pool the checks spread over (a job per check: the scheduler runs several at once).
  if (settings_.contains("gpus") && settings_["gpus"].is_string()) {
    if (auto selection = GpuSelection::parse(settings_["gpus"].get<std::string>())) {
      options.gpus = *selection;
      if (selection->mode == GpuSelection::Mode::List) options.gpu_index = selection->indices.front();
    }
  }
  engine_ = std::make_shared<Engine>(options);
  return engine_;
}

}  // namespace hone::lsp
