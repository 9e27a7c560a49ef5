// lsp/features.cpp: requests answered from what the server already knows (no job): code lenses,
// inlay hints, hover, code actions, hone/result and hone/proposal.
#include "engine/kernel_files.h"
#include "lsp/lsp_server.h"
#include "lsp/outline.h"
#include "support/unified_diff.h"
#include "protocol/verdict_text.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

// The static facts in a compile report of a kernel by its unqualified name (a template kernel's
// first instantiation: "void relu<float>(float*, int)" is relu's).
const protocol::KernelStatic* find_kernel_static(const std::optional<protocol::CompileReport>& compile, const std::string& name) {
  if (!compile) return nullptr;
  for (const protocol::KernelStatic& k : compile->kernels)
    if (kernel_base_name(k.name) == name) return &k;
  return nullptr;
}

// The actions of the kinds in context.only, when the client names some ("refactor" takes
// "refactor.rewrite" too).
json only_kinds(const json& actions, const json& params) {
  const json* only = params.contains("context") && params["context"].is_object() && params["context"].contains("only")
                         ? &params["context"]["only"] : nullptr;
  if (!only || !only->is_array()) return actions;
  json kept = json::array();
  for (const json& action : actions) {
    const std::string kind = action.value("kind", "");
    for (const json& wanted : *only)
      if (wanted.is_string() && (kind == wanted.get<std::string>() || kind.rfind(wanted.get<std::string>() + ".", 0) == 0)) {
        kept.push_back(action);
        break;
      }
  }
  return kept;
}

json command(const std::string& title, const std::string& name, json arguments) {
  return {{"title", title}, {"command", name}, {"arguments", std::move(arguments)}};
}

}  // namespace

// Whether the document has a task (`// hone: task=`, the same stem .py, hone.toml).
bool HoneLspServer::paired_task(const Document& doc) {
  return cached_pairing(doc, [&] {
    try {
      engine()->find_task(KernelSource{doc.path, doc.text});
      return true;
    } catch (const EngineError&) {
      return false;
    }
  });
}

namespace {

Range whole_document(const Document& doc, PositionEncoding encoding) {
  Position end = position_of(doc.text, doc.text.size(), encoding);
  return Range{{0, 0}, end};
}

}  // namespace

void HoneLspServer::on_code_lens(const DocumentParams& params, Reply reply) {
  auto doc = documents_.get(params.textDocument.uri);
  json lenses = json::array();
  if (!doc || !is_kernel_document(*doc)) {
    reply(lenses);
    return;
  }
  Outline outline = outline_of(*doc);
  KernelResults r = results_.get(doc->uri);
  json args = json::array({doc->uri});
  // Check, profile and optimize need hone's form (a `forward`) and a task: without a form, the
  // lens says what to add and offers the task skeleton (and the kernel's PTX); without a task, the
  // status lens does.
  if (!outline.forward_line) {
    const std::string title = "hone: to check, add forward() and a task — create " + doc->path.stem().string() + ".py";
    for (const auto& k : outline.kernels) {
      json range = Range{{k.line, 0}, {k.line, 0}};
      lenses.push_back({{"range", range}, {"command", command(title, "hone.createTask", args)}});
      lenses.push_back({{"range", range}, {"command", command("PTX", "hone.showPtx", json::array({doc->uri, {{"line", k.line}, {"function", k.name}}}))}});
    }
    reply(lenses);
    return;
  }
  const bool has_task = paired_task(*doc);
  std::string title;
  if (!r.running.empty()) {
    for (const auto& kind : r.running) title += (title.empty() ? "⟳ " : ", ") + kind;
    title += "…";
  } else if (r.check) {
    title = protocol::verdict_headline(*r.check);
  } else if (!has_task) {
    title = "hone: no task paired — create " + doc->path.stem().string() + ".py";
  } else {
    title = "hone: not checked";
  }
  std::vector<int> lines;
  if (outline.forward_line) lines.push_back(*outline.forward_line);
  for (const auto& k : outline.kernels) lines.push_back(k.line);
  for (int line : lines) {
    json range = Range{{line, 0}, {line, 0}};
    lenses.push_back({{"range", range}, {"command", command(title, has_task || r.check ? "hone.showReport" : "hone.createTask", args)}});
    lenses.push_back({{"range", range}, {"command", command("Check", "hone.check", args)}});
    lenses.push_back({{"range", range}, {"command", command("Profile", "hone.profile", args)}});
    lenses.push_back({{"range", range}, {"command", command("Optimize", "hone.optimize", args)}});
  }
  reply(lenses);
}

void HoneLspServer::on_inlay_hint(const RangeParams& params, Reply reply) {
  auto doc = documents_.get(params.textDocument.uri);
  json hints = json::array();
  if (!doc) {
    reply(hints);
    return;
  }
  KernelResults r = results_.get(doc->uri);
  const BufferLines lines(doc->text);
  for (const auto& anchor : outline_of(*doc).kernels) {
    if (anchor.line < params.range.start.line || anchor.line > params.range.end.line) continue;
    const protocol::KernelStatic* facts = find_kernel_static(r.compile, anchor.name);
    if (!facts) continue;
    std::string label = protocol::kernel_hint_label(*facts);
    if (label.empty()) continue;
    Position at{anchor.line, column_in_encoding(lines.line(anchor.line), anchor.column + anchor.name.size(), encoding_)};
    hints.push_back({{"position", at}, {"label", label}, {"paddingLeft", true},
                     {"tooltip", "hone: static facts from the last build (ptxas)"}});
  }
  reply(hints);
}

void HoneLspServer::on_hover(const TextDocumentPositionParams& params, Reply reply) {
  auto doc = documents_.get(params.textDocument.uri);
  if (!doc) {
    reply(nullptr);
    return;
  }
  std::size_t offset = offset_of(doc->text, params.position, encoding_);
  std::string_view line = line_text(doc->text, params.position.line);
  std::size_t line_start = offset_of(doc->text, {params.position.line, 0}, encoding_);
  std::size_t column = offset - line_start;
  KernelResults r = results_.get(doc->uri);
  Outline outline = outline_of(*doc);
  for (const auto& anchor : outline.kernels) {
    if (anchor.line != params.position.line || column < anchor.column || column > anchor.column + anchor.name.size()) continue;
    const protocol::KernelStatic* facts = find_kernel_static(r.compile, anchor.name);
    const protocol::ProfileReport* profile = r.profile && r.profile->profile ? &*r.profile->profile : nullptr;
    std::string md = facts ? protocol::kernel_hover_markdown(*facts, profile) : "**" + anchor.name + "** — not built yet";
    Range range{{anchor.line, column_in_encoding(line, anchor.column, encoding_)},
                {anchor.line, column_in_encoding(line, anchor.column + anchor.name.size(), encoding_)}};
    reply({{"contents", {{"kind", "markdown"}, {"value", md}}}, {"range", range}});
    return;
  }
  if (outline.forward_line == params.position.line && line.find("forward") != std::string_view::npos &&
      r.check) {
    reply({{"contents", {{"kind", "markdown"}, {"value", protocol::verdict_hover_markdown(*r.check)}}}});
    return;
  }
  reply(nullptr);
}

void HoneLspServer::on_code_action(const json& params, Reply reply) {
  RangeParams parsed;
  try {
    parsed = params.get<RangeParams>();
  } catch (const json::exception& e) {
    reply.error({rpc::kInvalidParams, std::string("invalid params for textDocument/codeAction: ") + e.what()});
    return;
  }
  auto doc = documents_.get(parsed.textDocument.uri);
  json actions = json::array();
  if (!doc) {
    reply(actions);
    return;
  }
  KernelResults r = results_.get(doc->uri);
  const std::vector<protocol::Suggestion> none;
  const auto& suggestions = r.profile && r.profile->profile ? r.profile->profile->suggestions : none;
  for (const protocol::Suggestion& s : suggestions) {
    if (!s.location || s.location->line <= 0) continue;
    int line = s.location->line - 1;
    if (line < parsed.range.start.line || line > parsed.range.end.line) continue;
    std::string title = s.title.empty() ? "suggestion" : s.title;
    actions.push_back({{"title", "hone: optimize — " + title},
                       {"kind", "quickfix"},
                       {"command", command("hone: optimize — " + title, "hone.optimize",
                                           json::array({doc->uri, {{"hint", protocol::suggestion_text(s)}}}))}});
  }
  const Outline outline = outline_of(*doc);
  const bool checkable = outline.forward_line && paired_task(*doc);
  // The lenses' commands as code actions too, for clients that draw no lenses (eglot, Helix).
  if (checkable && is_kernel_document(*doc)) {
    for (const char* verb : {"check", "profile", "optimize"}) {
      const std::string title = std::string("hone: ") + verb;
      actions.push_back({{"title", title}, {"kind", "source"}, {"command", command(title, std::string("hone.") + verb, json::array({doc->uri}))}});
    }
  }
  if (!checkable && is_kernel_document(*doc)) {
    const std::string title = "hone: create a task skeleton (" + doc->path.stem().string() + ".py) to check this kernel";
    actions.push_back({{"title", title}, {"kind", "quickfix"}, {"command", command(title, "hone.createTask", json::array({doc->uri}))}});
  }
  for (const auto& k : outline.kernels) {
    if (k.line < parsed.range.start.line || k.line > parsed.range.end.line) continue;
    for (const char* kind : {"PTX", "SASS"}) {
      const std::string title = std::string("hone: show the ") + kind + " of " + k.name;
      actions.push_back({{"title", title}, {"kind", "source"},
                         {"command", command(title, std::string(kind) == "PTX" ? "hone.showPtx" : "hone.showSass",
                                             json::array({doc->uri, {{"line", k.line}, {"function", k.name}}}))}});
    }
  }
  if (const Proposal* best = r.optimize ? r.optimize->find(std::nullopt) : nullptr) {
    std::string title = "hone: apply proposal " + std::to_string(best->id);
    if (best->speedup.eager) title += " (" + protocol::format_number(*best->speedup.eager) + "× eager, verified)";
    json edit = {{"changes", {{doc->uri, json::array({{{"range", whole_document(*doc, encoding_)}, {"newText", best->text}}})}}}};
    actions.push_back({{"title", title}, {"kind", "refactor.rewrite"}, {"edit", edit}});
  }
  reply(only_kinds(actions, params));
}

void HoneLspServer::on_result(const DocumentParams& params, Reply reply) {
  auto doc = documents_.get(params.textDocument.uri);
  if (!doc) {
    reply.error({rpc::kInvalidParams, "document is not open: " + params.textDocument.uri});
    return;
  }
  KernelResults r = results_.get(doc->uri);
  json out = {{"uri", doc->uri}, {"version", doc->version}, {"running", r.running}};
  if (r.built_version) out["builtVersion"] = *r.built_version;
  if (r.compile) out["compile"] = *r.compile;
  if (r.check) out["check"] = *r.check;
  if (r.profile) out["profile"] = *r.profile;
  if (r.optimize) out["optimize"] = *r.optimize;
  reply(out);
}

void HoneLspServer::on_proposal(const ProposalParams& params, Reply reply) {
  auto doc = documents_.get(params.textDocument.uri);
  if (!doc) {
    reply.error({rpc::kInvalidParams, "document is not open: " + params.textDocument.uri});
    return;
  }
  const std::optional<OptimizeResult> optimize = results_.get(doc->uri).optimize;
  const Proposal* proposal = optimize ? optimize->find(params.id) : nullptr;
  if (!proposal) {
    reply.error({rpc::kRequestFailed, params.id ? "no proposal " + std::to_string(*params.id) + " for " + doc->uri
                                                : "no proposal yet for " + doc->uri + ": run hone/optimize first"});
    return;
  }
  json out = *proposal;
  out["uri"] = doc->uri;
  out["diff"] = unified_diff(doc->text, proposal->text, doc->path.filename().string());
  reply(out);
}

}  // namespace hone::lsp
