// lsp/commands.cpp: workspace/executeCommand, so that any client (Neovim's, Emacs eglot's,
// Helix's) runs what hone's lenses and code actions carry: check, profile and optimize as jobs
// (answered when they finish, their summary shown with window/showMessage), the report, applying
// and undoing a proposal (workspace/applyEdit), the PTX/SASS of the kernel under the cursor, and
// a task skeleton next to a kernel that has none.
#include <algorithm>

#include "lsp/lsp_server.h"
#include "lsp/machine_code_view.h"
#include "lsp/outline.h"
#include "protocol/verdict_text.h"
#include "support/hash.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

// The document a command's first argument names: a URI, or an object with `uri` or `textDocument.uri`.
std::optional<std::string> uri_argument(const json& args) {
  if (!args.is_array() || args.empty()) return std::nullopt;
  const json& a = args[0];
  if (a.is_string()) return a.get<std::string>();
  if (a.is_object() && a.contains("uri") && a["uri"].is_string()) return a["uri"].get<std::string>();
  if (a.is_object() && a.contains("textDocument") && a["textDocument"].is_object() && a["textDocument"].contains("uri") &&
      a["textDocument"]["uri"].is_string())
    return a["textDocument"]["uri"].get<std::string>();
  return std::nullopt;
}

json option_argument(const json& args) {
  return args.is_array() && args.size() > 1 && args[1].is_object() ? args[1] : json::object();
}

// A KernelBench-format task for a kernel that has none: the reference to write, its inputs, and
// what the kernel needs (hone's raw form) to be checked against it.
std::string task_skeleton(const std::filesystem::path& kernel, bool cuda, bool has_forward) {
  const std::string device = cuda ? ", device=\"cuda\"" : "";
  std::string s = "# " + kernel.stem().string() + ".py: the task hone checks " + kernel.filename().string() +
                  " against (KernelBench format).\n# Write the reference computation in Model.forward and the inputs in get_inputs().\n";
  if (!has_forward) {
    s += "# " + kernel.filename().string() + " needs a host entry point hone can call, e.g. (raw form):\n"
         "#   #include \"hone.h\"\n"
         "#   void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {\n"
         "#     my_kernel<<<blocks, threads, 0, stream>>>(x.data(), out.data(), x.numel());\n"
         "#   }\n";
  }
  s += "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
       "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        return x  # TODO: the reference computation\n\n\n"
       "def get_inputs():\n    return [torch.randn(1024" + device + ")]\n\n\ndef get_init_inputs():\n    return []\n";
  return s;
}

}  // namespace

const std::vector<std::string>& server_commands() {
  static const std::vector<std::string> kCommands = {"hone.check",          "hone.profile",     "hone.optimize",
                                                     "hone.showReport",     "hone.applyProposal", "hone.undoProposal",
                                                     "hone.showPtx",        "hone.showSass",    "hone.createTask"};
  return kCommands;
}

void HoneLspServer::show_message(int type, const std::string& message) {
  dispatcher_.notify("window/showMessage", {{"type", type}, {"message", message}});
}

void HoneLspServer::apply_proposal(const std::string& uri, const std::string& current_text, const json& args,
                                   Reply reply) {
  const json o = option_argument(args);
  std::optional<std::int64_t> id;
  if (args.is_array() && args.size() > 1 && args[1].is_number_integer()) id = args[1].get<std::int64_t>();
  if (o.contains("id") && o["id"].is_number_integer()) id = o["id"].get<std::int64_t>();
  const std::optional<OptimizeResult> optimize = results_.get(uri).optimize;
  const Proposal* p = optimize ? optimize->find(id) : nullptr;
  if (!p) {
    reply.error({rpc::kRequestFailed, "no proposal to apply for " + uri + ": run hone.optimize first"});
    return;
  }
  const std::string before = current_text;
  apply_text(uri, p->text, "hone: apply proposal " + std::to_string(p->id), std::move(reply), [this, uri, before] {
    results_.update(uri, [&](KernelResults& r) { r.before_proposal = before; });
  });
}

void HoneLspServer::undo_proposal(const std::string& uri, Reply reply) {
  auto before = results_.get(uri).before_proposal;
  if (!before) {
    reply.error({rpc::kRequestFailed, "no applied proposal to undo for " + uri});
    return;
  }
  apply_text(uri, *before, "hone: undo proposal", std::move(reply), [this, uri] {
    results_.update(uri, [&](KernelResults& r) { r.before_proposal.reset(); });
  });
}

void HoneLspServer::on_execute_command(const json& params, Reply reply, std::stop_token stop) {
  if (!params.is_object() || !params.contains("command") || !params["command"].is_string()) {
    reply.error({rpc::kInvalidParams, "workspace/executeCommand needs a command"});
    return;
  }
  const std::string command = params["command"].get<std::string>();
  const json args = params.value("arguments", json::array());
  const auto& known = server_commands();
  if (std::find(known.begin(), known.end(), command) == known.end()) {
    reply.error({rpc::kInvalidParams, "unknown command '" + command + "'"});
    return;
  }
  auto uri = uri_argument(args);
  if (!uri && (!args.is_array() || args.empty())) {
    // A prompt without arguments (Helix's :lsp-workspace-command): the one open kernel, if only one is.
    std::vector<std::string> kernels;
    for (const Document& d : documents_.all())
      if (is_kernel_document(d)) kernels.push_back(d.uri);
    if (kernels.size() == 1) uri = kernels[0];
  }
  if (!uri) {
    reply.error({rpc::kInvalidParams, command + " needs the document's URI as its first argument: a string, {\"uri\": ...} or "
                                                "{\"textDocument\": {\"uri\": ...}}"});
    return;
  }
  auto doc = documents_.get(*uri);
  if (!doc) {
    reply.error({rpc::kInvalidParams, "document is not open: " + *uri});
    return;
  }
  const std::string verb = command.substr(5);
  if (verb == "check" || verb == "profile" || verb == "optimize") {
    JobParams job;
    job.textDocument.uri = *uri;
    job.options = option_argument(args);
    if (job.options.contains("task") && job.options["task"].is_string()) {
      job.task = job.options["task"].get<std::string>();
      job.options.erase("task");
    }
    if (params.contains("workDoneToken")) job.workDoneToken = params["workDoneToken"];
    on_job(verb, job, std::move(reply), stop, true);
    return;
  }
  if (verb == "showReport") {
    KernelResults r = results_.get(*uri);
    const std::string headline = r.check ? protocol::verdict_headline(*r.check) : "not checked yet: run hone.check";
    show_message(3, "hone " + doc->path.filename().string() + ": " + headline);
    json out = {{"uri", *uri}, {"headline", headline}};
    if (r.check) out["check"] = *r.check;
    if (r.compile) out["compile"] = *r.compile;
    reply(out);
    return;
  }
  if (verb == "applyProposal") {
    apply_proposal(*uri, doc->text, args, std::move(reply));
    return;
  }
  if (verb == "undoProposal") {
    undo_proposal(*uri, std::move(reply));
    return;
  }
  if (verb == "createTask") {
    create_task(*uri, std::move(reply));
    return;
  }
  show_machine_code(verb == "showSass" ? "sass" : "ptx", *uri, args, std::move(reply));
}

void HoneLspServer::apply_text(const std::string& uri, const std::string& text, const std::string& label, Reply reply,
                               std::function<void()> on_applied) {
  auto doc = documents_.get(uri);
  Position end = position_of(doc->text, doc->text.size(), encoding_);
  json edit = {{"changes", {{uri, json::array({{{"range", Range{{0, 0}, end}}, {"newText", text}}})}}}};
  dispatcher_.call("workspace/applyEdit", {{"label", label}, {"edit", edit}},
                   [reply, on_applied, label](const json& result, const RpcError* error) {
                     if (error) return reply.error({rpc::kRequestFailed, label + ": the client refused the edit: " + error->message});
                     if (!result.is_object() || !result.value("applied", false))
                       return reply.error({rpc::kRequestFailed, label + ": the client did not apply the edit"});
                     on_applied();
                     reply({{"applied", true}});
                   });
}

void HoneLspServer::create_task(const std::string& uri, Reply reply) {
  auto doc = documents_.get(uri);
  const std::filesystem::path task = doc->path.parent_path() / (doc->path.stem().string() + ".py");
  std::error_code ec;
  if (std::filesystem::exists(task, ec)) {
    reply.error({rpc::kRequestFailed, task.string() + " exists already: hone pairs it with " + doc->path.filename().string()});
    return;
  }
  const bool cuda = doc->path.extension() == ".cu" || doc->path.extension() == ".cuh";
  try {
    write_file_atomic(task, task_skeleton(doc->path, cuda, outline_of(*doc).forward_line.has_value()));
  } catch (const std::exception& e) {
    reply.error({rpc::kRequestFailed, std::string("cannot write the task: ") + e.what()});
    return;
  }
  forget_pairing(uri);
  show_message(3, "hone: wrote " + task.string() + " (the reference to check " + doc->path.filename().string() + " against)");
  bool show;
  {
    std::lock_guard lock(mutex_);
    show = client_shows_documents_;
  }
  if (show) dispatcher_.call("window/showDocument", {{"uri", uri_from_path(task)}, {"takeFocus", true}}, [](const json&, const RpcError*) {});
  schedule_refresh();
  reply({{"task", task.string()}, {"uri", uri_from_path(task)}});
}

void HoneLspServer::show_machine_code(const std::string& kind, const std::string& uri, const json& args, Reply reply) {
  auto doc = documents_.get(uri);
  const json o = option_argument(args);
  MachineCodeRequest request;
  request.kernel = {doc->path, doc->text};
  request.kind = kind;
  request.function = o.value("function", std::string());
  request.line = o.contains("line") && o["line"].is_number_integer() ? o["line"].get<int>() + 1 : 0;
  if (request.function.empty() && request.line > 0) {
    for (const auto& k : outline_of(*doc).kernels)
      if (k.line <= request.line - 1) request.function = k.name;  // the last kernel starting at or above the cursor
  }
  std::shared_ptr<Engine> eng;
  try {
    eng = engine();
  } catch (const EngineError& e) {
    reply.error({rpc::kRequestFailed, std::string("hone cannot start its engine: ") + e.what()});
    return;
  }
  bool show;
  std::filesystem::path workspace;
  {
    std::lock_guard lock(mutex_);
    show = client_shows_documents_;
    workspace = options_.engine.workspace;
  }
  JobSpec spec;
  spec.name = "machine:" + kind + ":" + doc->uri;  // a newer PTX request replaces a waiting one, not a SASS one
  spec.queue = JobQueue::cpu;
  spec.done = [reply](JobOutcome outcome) {
    if (outcome == JobOutcome::superseded) reply.error({rpc::kRequestCancelled, "superseded by a newer request for the same listing"});
    if (outcome == JobOutcome::cancelled) reply.error({rpc::kRequestCancelled, "cancelled"});
  };
  spec.run = [this, eng, request, reply, show, workspace, uri](std::stop_token stop) {
    MachineCode code;
    try {
      code = eng->machine_code(request, CallContext{stop, {}});
    } catch (const EngineError& e) {
      if (e.kind() == EngineError::Kind::Cancelled) return reply.error({rpc::kRequestCancelled, e.what()});
      show_message(1, std::string("hone: ") + e.what());
      return reply.error({rpc::kRequestFailed, e.what()});
    }
    // A file for clients without a virtual-document view (Neovim, eglot, Helix): .hone/asm/ in the
    // workspace, else (none, or one that is not there to write in) beside the kernel.
    std::error_code ec;
    std::filesystem::path root = std::filesystem::is_directory(workspace, ec) ? workspace : request.kernel.path.parent_path();
    std::filesystem::path file = root / ".hone" / "asm" / (request.kernel.path.stem().string() + "." + code.name + "." + code.kind);
    try {
      write_file_atomic(file, annotated_listing(code));
    } catch (const std::exception&) {
      file.clear();
    }
    json out = machine_code_json(code, request.kernel.path, uri);
    if (!file.empty()) out["path"] = file.string();
    if (show && !file.empty())
      dispatcher_.call("window/showDocument", {{"uri", uri_from_path(file)}, {"takeFocus", false}}, [](const json&, const RpcError*) {});
    reply(out);
  };
  scheduler_->schedule(std::move(spec));
}

}  // namespace hone::lsp
