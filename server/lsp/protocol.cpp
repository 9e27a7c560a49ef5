// lsp/protocol.cpp: from_json/to_json for the LSP structures in protocol.h.
#include "lsp/protocol.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

int non_negative(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 0x7fffffff) {
    throw json::type_error::create(302, std::string("'") + key + "' must be a non-negative integer", &j);
  }
  return v.get<int>();
}

template <typename T>
std::optional<T> optional_field(const json& j, const char* key) {
  auto found = j.find(key);
  if (found == j.end() || found->is_null()) return std::nullopt;
  return found->get<T>();
}

void require_object(const json& j) {
  if (!j.is_object()) throw json::type_error::create(302, "params must be an object", &j);
}

}  // namespace

void from_json(const json& j, Position& v) {
  require_object(j);
  v.line = non_negative(j, "line");
  v.character = non_negative(j, "character");
}

void to_json(json& j, const Position& v) { j = {{"line", v.line}, {"character", v.character}}; }

void from_json(const json& j, Range& v) {
  require_object(j);
  j.at("start").get_to(v.start);
  j.at("end").get_to(v.end);
}

void to_json(json& j, const Range& v) { j = {{"start", v.start}, {"end", v.end}}; }

void from_json(const json& j, TextDocumentIdentifier& v) {
  require_object(j);
  j.at("uri").get_to(v.uri);
}

void from_json(const json& j, TextDocumentItem& v) {
  require_object(j);
  j.at("uri").get_to(v.uri);
  j.at("languageId").get_to(v.languageId);
  j.at("version").get_to(v.version);
  j.at("text").get_to(v.text);
}

void from_json(const json& j, DidOpenParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
}

void from_json(const json& j, ContentChange& v) {
  require_object(j);
  v.range = optional_field<Range>(j, "range");
  j.at("text").get_to(v.text);
}

void from_json(const json& j, DidChangeParams& v) {
  require_object(j);
  const json& doc = j.at("textDocument");
  doc.get_to(v.textDocument);
  doc.at("version").get_to(v.version);
  j.at("contentChanges").get_to(v.contentChanges);
}

void from_json(const json& j, DidSaveParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
  v.text = optional_field<std::string>(j, "text");
}

void from_json(const json& j, DidCloseParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
}

void from_json(const json& j, TextDocumentPositionParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
  j.at("position").get_to(v.position);
}

void from_json(const json& j, DocumentParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
}

void from_json(const json& j, RangeParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
  j.at("range").get_to(v.range);
}

void from_json(const json& j, JobParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
  auto token = j.find("workDoneToken");
  if (token != j.end() && !token->is_null()) {
    if (!token->is_string() && !token->is_number_integer()) {
      throw json::type_error::create(302, "'workDoneToken' must be a string or an integer", &j);
    }
    v.workDoneToken = *token;
  }
  v.task = optional_field<std::string>(j, "task");
  auto options = j.find("options");
  if (options != j.end() && !options->is_null()) {
    if (!options->is_object()) throw json::type_error::create(302, "'options' must be an object", &j);
    v.options = *options;
  }
}

void from_json(const json& j, ProposalParams& v) {
  require_object(j);
  j.at("textDocument").get_to(v.textDocument);
  v.id = optional_field<int>(j, "id");
}

void from_json(const json& j, WorkDoneProgressCancelParams& v) {
  require_object(j);
  v.token = j.at("token");
}

void from_json(const json& j, ConfigurationParams& v) {
  require_object(j);
  v.settings = j.value("settings", json());
}

}  // namespace hone::lsp
