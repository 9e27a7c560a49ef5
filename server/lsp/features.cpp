// lsp/features.cpp: requests answered from what the server already knows (no job): code lenses,
// inlay hints, hover, code actions, hone/result and hone/proposal.
#include "lsp/lsp_server.h"
#include "lsp/outline.h"
#include "lsp/render.h"
#include "optimize/unified_diff.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

// The kernel_static entry of a compile report for an unqualified kernel name.
const json* find_kernel_static(const json& compile, const std::string& name) {
  if (!compile.is_object() || !compile.contains("kernels") || !compile["kernels"].is_array()) return nullptr;
  for (const json& k : compile["kernels"]) {
    std::string full = k.value("name", "");
    std::string base = full.substr(0, full.find('('));
    std::size_t colon = base.rfind("::");
    if (colon != std::string::npos) base = base.substr(colon + 2);
    std::size_t space = base.rfind(' ');
    if (space != std::string::npos) base = base.substr(space + 1);
    if (base == name) return &k;
  }
  return nullptr;
}

json command(const std::string& title, const std::string& name, json arguments) {
  return {{"title", title}, {"command", name}, {"arguments", std::move(arguments)}};
}

Range whole_document(const Document& doc, PositionEncoding encoding) {
  Position end = position_of(doc.text, doc.text.size(), encoding);
  return Range{{0, 0}, end};
}

const json* find_proposal(const json& optimize, std::optional<int> id) {
  if (!optimize.is_object() || !optimize.contains("proposals")) return nullptr;
  std::optional<int> wanted = id;
  if (!wanted && optimize.contains("best") && optimize["best"].is_number_integer()) wanted = optimize["best"].get<int>();
  for (const json& p : optimize["proposals"]) {
    if (!wanted || p.value("id", -1) == *wanted) return &p;
  }
  return nullptr;
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
  std::string title;
  if (!r.running.empty()) {
    for (const auto& kind : r.running) title += (title.empty() ? "⟳ " : ", ") + kind;
    title += "…";
  } else if (r.check.is_object()) {
    title = verdict_summary(r.check);
  } else {
    title = "hone: not checked";
  }
  std::vector<int> lines;
  if (outline.forward_line) lines.push_back(*outline.forward_line);
  for (const auto& k : outline.kernels) lines.push_back(k.line);
  json args = json::array({doc->uri});
  for (int line : lines) {
    json range = Range{{line, 0}, {line, 0}};
    lenses.push_back({{"range", range}, {"command", command(title, "hone.showReport", args)}});
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
  for (const auto& anchor : outline_of(*doc).kernels) {
    if (anchor.line < params.range.start.line || anchor.line > params.range.end.line) continue;
    const json* facts = find_kernel_static(r.compile, anchor.name);
    if (!facts) continue;
    std::string label = kernel_hint_label(*facts);
    if (label.empty()) continue;
    std::string_view line = line_text(doc->text, anchor.line);
    Position at{anchor.line, column_in_encoding(line, anchor.column + anchor.name.size(), encoding_)};
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
    const json* facts = find_kernel_static(r.compile, anchor.name);
    json profile = r.profile.is_object() ? r.profile.value("profile", json()) : json();
    std::string md = facts ? kernel_hover_markdown(*facts, profile) : "**" + anchor.name + "** — not built yet";
    Range range{{anchor.line, column_in_encoding(line, anchor.column, encoding_)},
                {anchor.line, column_in_encoding(line, anchor.column + anchor.name.size(), encoding_)}};
    reply({{"contents", {{"kind", "markdown"}, {"value", md}}}, {"range", range}});
    return;
  }
  if (outline.forward_line == params.position.line && line.find("forward") != std::string_view::npos &&
      r.check.is_object()) {
    reply({{"contents", {{"kind", "markdown"}, {"value", verdict_hover_markdown(r.check)}}}});
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
  for (const json& s : suggestions_of(r.profile)) {
    std::optional<int> at = suggestion_line(s);
    if (!at) continue;
    int line = *at - 1;
    if (line < parsed.range.start.line || line > parsed.range.end.line) continue;
    std::string title = s.value("title", s.value("message", std::string("suggestion")));
    actions.push_back({{"title", "hone: optimize — " + title},
                       {"kind", "quickfix"},
                       {"command", command("hone: optimize — " + title, "hone.optimize",
                                           json::array({doc->uri, {{"hint", suggestion_text(s)}}}))}});
  }
  if (const json* best = find_proposal(r.optimize, std::nullopt); best && best->contains("text")) {
    std::string title = "hone: apply proposal " + std::to_string(best->value("id", 0));
    if (best->contains("/speedup/eager"_json_pointer) && best->at("/speedup/eager"_json_pointer).is_number()) {
      title += " (" + format_number(best->at("/speedup/eager"_json_pointer).get<double>()) + "× eager, verified)";
    }
    json edit = {{"changes", {{doc->uri, json::array({{{"range", whole_document(*doc, encoding_)}, {"newText", (*best)["text"]}}})}}}};
    actions.push_back({{"title", title}, {"kind", "refactor.rewrite"}, {"edit", edit}});
  }
  reply(actions);
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
  if (!r.compile.is_null()) out["compile"] = r.compile;
  if (!r.check.is_null()) out["check"] = r.check;
  if (!r.profile.is_null()) out["profile"] = r.profile;
  if (!r.optimize.is_null()) out["optimize"] = r.optimize;
  reply(out);
}

void HoneLspServer::on_proposal(const ProposalParams& params, Reply reply) {
  auto doc = documents_.get(params.textDocument.uri);
  if (!doc) {
    reply.error({rpc::kInvalidParams, "document is not open: " + params.textDocument.uri});
    return;
  }
  const json optimize = results_.get(doc->uri).optimize;
  const json* proposal = find_proposal(optimize, params.id);
  if (!proposal) {
    reply.error({rpc::kRequestFailed, params.id ? "no proposal " + std::to_string(*params.id) + " for " + doc->uri
                                                : "no proposal yet for " + doc->uri + ": run hone/optimize first"});
    return;
  }
  json out = *proposal;
  out["uri"] = doc->uri;
  out["diff"] = unified_diff(doc->text, proposal->value("text", std::string()), doc->path.filename().string());
  reply(out);
}

}  // namespace hone::lsp
