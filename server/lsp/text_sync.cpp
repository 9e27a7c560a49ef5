// lsp/text_sync.cpp: open/change/save/close, the debounced builds they start (the unsaved buffer
// is what gets compiled), diagnostics publishing, and the debounced lens/hint refresh requests.
#include <algorithm>

#include "engine/kernel_files.h"
#include "lsp/lsp_server.h"
#include "lsp/outline.h"
#include "lsp/render.h"
#include "support/hash.h"

namespace hone::lsp {

using nlohmann::json;

void HoneLspServer::on_did_open(const DidOpenParams& params) {
  if (auto error = documents_.open(params.textDocument)) {
    log(*error);
    return;
  }
  if (kernel_file_kind(documents_.get(params.textDocument.uri)->path) != KernelFile::None)
    schedule_build(params.textDocument.uri, {});
}

void HoneLspServer::on_did_change(const DidChangeParams& params) {
  if (auto error = documents_.change(params, encoding_)) {
    log(*error);
    return;
  }
  auto doc = documents_.get(params.textDocument.uri);
  if (kernel_file_kind(doc->path) != KernelFile::None) schedule_build(doc->uri, options_.change_debounce);
}

void HoneLspServer::on_did_save(const DidSaveParams& params) {
  auto doc = documents_.get(params.textDocument.uri);
  if (!doc) return;
  const KernelFile kind = kernel_file_kind(doc->path);
  if (kind != KernelFile::None) schedule_build(doc->uri, {});
  if (kind == KernelFile::Source) return;
  // A saved header: rebuild the open kernels (their builds read local headers from disk).
  for (const Document& other : documents_.all()) {
    if (other.uri != doc->uri && kernel_file_kind(other.path) != KernelFile::None) schedule_build(other.uri, {});
  }
}

void HoneLspServer::on_did_close(const DidCloseParams& params) {
  const std::string& uri = params.textDocument.uri;
  scheduler_->cancel_named("build:" + uri);
  documents_.close(uri);
  forget_outline(uri);
  results_.erase(uri);
  // Its part of every file's diagnostics goes; what other open kernels say about a file it
  // includes stays.
  for (auto& [target, diagnostics] : diagnostics_.remove(uri))
    dispatcher_.notify("textDocument/publishDiagnostics", {{"uri", target}, {"diagnostics", std::move(diagnostics)}});
}

void HoneLspServer::schedule_build(const std::string& uri, std::chrono::milliseconds debounce) {
  JobSpec spec;
  spec.name = "build:" + uri;
  spec.queue = JobQueue::cpu;
  spec.debounce = debounce;
  spec.supersede_running = true;
  spec.run = [this, uri](std::stop_token stop) { run_build(uri, stop); };
  scheduler_->schedule(std::move(spec));
}

void HoneLspServer::run_build(const std::string& uri, std::stop_token stop) {
  auto doc = documents_.get(uri);
  if (!doc) return;
  if (!is_kernel_document(*doc)) {
    // Not (or no longer) a kernel: nothing to build; withdraw what an earlier version published.
    KernelResults old = results_.get(uri);
    results_.update(uri, [&](KernelResults& r) {
      r.built_version.reset();
      r.compile.reset();
      r.check.reset();
      r.profile.reset();
    });
    if (diagnostics_.contributes(uri) || old.built_version) {
      publish_diagnostics(uri);
      schedule_refresh();
    }
    return;
  }
  protocol::CompileReport compile;
  auto failure = [&](const std::string& message) {
    protocol::CompileReport report;
    report.diagnostics.push_back({doc->path.string(), 0, 0, protocol::Severity::Error, message, protocol::DiagnosticSource::Hone});
    return report;
  };
  try {
    BuildRequest request;
    request.kernel = {doc->path, doc->text};
    compile = engine()->build(request, CallContext{stop, {}}).compile;
  } catch (const EngineError& e) {
    if (e.kind() == EngineError::Kind::Cancelled) return;
    std::string message = e.what();
    if (!e.detail().empty()) message += "\n" + e.detail();
    compile = failure(message);
  } catch (const std::exception& e) {
    log(std::string("build of ") + uri + " failed: " + e.what());
    compile = failure(std::string("hone could not build this kernel (internal error): ") + e.what());
  }
  if (stop.stop_requested()) return;
  auto current = documents_.get(uri);
  if (!current || current->version != doc->version) return;
  results_.update(uri, [&](KernelResults& r) {
    r.built_version = doc->version;
    r.compile = compile;
  });
  publish_diagnostics(uri);
  schedule_refresh();
}

namespace {

// The 0-based line of the #include in `text` that names `header` (by its file name); nullopt when none does.
std::optional<int> include_line(std::string_view text, const std::filesystem::path& header) {
  const std::string name = header.filename().string();
  int line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    std::size_t hash = l.find_first_not_of(" \t");
    if (hash != std::string_view::npos && l[hash] == '#' && l.find("include") != std::string_view::npos &&
        (l.find("/" + name) != std::string_view::npos || l.find("\"" + name) != std::string_view::npos ||
         l.find("<" + name) != std::string_view::npos))
      return line;
    ++line;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

void HoneLspServer::publish_diagnostics(const std::string& uri) {
  auto doc = documents_.get(uri);
  if (!doc) return;
  KernelResults r = results_.get(uri);
  std::map<std::string, json> by_uri;
  by_uri[uri] = json::array();
  auto text_of = [&](const std::string& target, const std::filesystem::path& path) -> std::string {
    if (target == uri) return doc->text;
    if (auto open = documents_.get(target)) return open->text;
    try {
      return read_file(path);
    } catch (const std::exception&) {
      return {};
    }
  };
  if (r.compile) {
    for (const protocol::Diagnostic& d : r.compile->diagnostics) {
      std::filesystem::path file = d.file;
      if (!file.empty() && file.is_relative()) file = doc->path.parent_path() / file;
      std::string target = file.empty() || file.lexically_normal() == doc->path ? uri : uri_from_path(file);
      json lsp = to_lsp_diagnostic(d, text_of(target, file), encoding_);
      // In an included header: shown at the header's line, pointing back at the #include (and,
      // for errors, repeated at the #include as clangd does, pointing at the header's line).
      if (target != uri) {
        if (auto include = include_line(doc->text, file)) {
          json at_include = Range{{*include, 0}, {*include, static_cast<int>(line_text(doc->text, *include).size())}};
          lsp["relatedInformation"] = json::array(
              {{{"location", {{"uri", uri}, {"range", at_include}}}, {"message", "included from " + doc->path.filename().string()}}});
          if (d.severity == protocol::Severity::Error) {
            json here = {{"range", at_include}, {"severity", lsp["severity"]}, {"source", lsp["source"]},
                         {"message", "in included file " + file.filename().string() + ":" + std::to_string(d.line) + ": " + d.message},
                         {"relatedInformation", json::array({{{"location", {{"uri", target}, {"range", lsp["range"]}}}, {"message", d.message}}})}};
            by_uri[uri].push_back(std::move(here));
          }
        }
      }
      by_uri[target].push_back(std::move(lsp));
    }
  }
  Outline outline = outline_of(*doc);
  int forward_line = outline.forward_line.value_or(0);
  if (r.check && r.check->status != protocol::Status::CompileError) {
    for (json& d : verdict_diagnostics(*r.check, doc->text, forward_line, encoding_)) by_uri[uri].push_back(std::move(d));
  }
  if (r.profile && r.profile->profile) {
    for (const protocol::Suggestion& s : r.profile->profile->suggestions)
      if (auto d = suggestion_diagnostic(s, doc->text, encoding_)) by_uri[uri].push_back(std::move(*d));
  }
  // Each file's set merges every open kernel's part (a header two kernels include, or one open
  // and built itself, keeps all of them); a file this build no longer mentions gets the others'.
  for (auto& [target, diagnostics] : diagnostics_.replace(uri, by_uri)) {
    json params = {{"uri", target}, {"diagnostics", std::move(diagnostics)}};
    if (target == uri) params["version"] = doc->version;
    dispatcher_.notify("textDocument/publishDiagnostics", params);
  }
}

void HoneLspServer::schedule_refresh() {
  bool lenses, hints;
  {
    std::lock_guard lock(mutex_);
    lenses = client_refreshes_lenses_;
    hints = client_refreshes_hints_;
  }
  if (!lenses && !hints) return;
  JobSpec spec;
  spec.name = "refresh";
  spec.queue = JobQueue::cpu;
  spec.debounce = options_.refresh_debounce;
  spec.run = [this, lenses, hints](std::stop_token) {
    auto ignore = [](const json&, const RpcError*) {};
    if (lenses) dispatcher_.call("workspace/codeLens/refresh", nullptr, ignore);
    if (hints) dispatcher_.call("workspace/inlayHint/refresh", nullptr, ignore);
  };
  scheduler_->schedule(std::move(spec));
}

}  // namespace hone::lsp
