// lsp/protocol.h: the LSP 3.17 structures hone-server reads, spelled like the wire, with
// from_json (throwing on a missing or mistyped field, which the dispatcher answers with
// InvalidParams) and to_json. Only what the server uses; the rest of a message is ignored.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hone::lsp {

struct Position {
  int line = 0;
  int character = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range&, const Range&) = default;
};

struct TextDocumentIdentifier {
  std::string uri;
};

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  int version = 0;
  std::string text;
};

struct DidOpenParams {
  TextDocumentItem textDocument;
};

struct ContentChange {
  std::optional<Range> range;  // absent: the whole text
  std::string text;
};

struct DidChangeParams {
  TextDocumentIdentifier textDocument;
  int version = 0;
  std::vector<ContentChange> contentChanges;
};

struct DidSaveParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> text;
};

struct DidCloseParams {
  TextDocumentIdentifier textDocument;
};

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};

struct DocumentParams {  // codeLens, and hone/result
  TextDocumentIdentifier textDocument;
};

struct RangeParams {  // inlayHint, codeAction (context read separately)
  TextDocumentIdentifier textDocument;
  Range range;
};

// hone/check, hone/profile, hone/optimize.
struct JobParams {
  TextDocumentIdentifier textDocument;
  std::optional<nlohmann::json> workDoneToken;
  std::optional<std::string> task;  // a task path overriding the pairing
  nlohmann::json options = nlohmann::json::object();
};

struct ProposalParams {
  TextDocumentIdentifier textDocument;
  std::optional<int> id;  // absent: the best proposal
};

struct WorkDoneProgressCancelParams {
  nlohmann::json token;
};

struct ConfigurationParams {
  nlohmann::json settings;
};

void from_json(const nlohmann::json& j, Position& v);
void to_json(nlohmann::json& j, const Position& v);
void from_json(const nlohmann::json& j, Range& v);
void to_json(nlohmann::json& j, const Range& v);
void from_json(const nlohmann::json& j, TextDocumentIdentifier& v);
void from_json(const nlohmann::json& j, TextDocumentItem& v);
void from_json(const nlohmann::json& j, DidOpenParams& v);
void from_json(const nlohmann::json& j, ContentChange& v);
void from_json(const nlohmann::json& j, DidChangeParams& v);
void from_json(const nlohmann::json& j, DidSaveParams& v);
void from_json(const nlohmann::json& j, DidCloseParams& v);
void from_json(const nlohmann::json& j, TextDocumentPositionParams& v);
void from_json(const nlohmann::json& j, DocumentParams& v);
void from_json(const nlohmann::json& j, RangeParams& v);
void from_json(const nlohmann::json& j, JobParams& v);
void from_json(const nlohmann::json& j, ProposalParams& v);
void from_json(const nlohmann::json& j, WorkDoneProgressCancelParams& v);
void from_json(const nlohmann::json& j, ConfigurationParams& v);

// LSP DiagnosticSeverity and InlayHintKind values.
namespace severity {
constexpr int kError = 1;
constexpr int kWarning = 2;
constexpr int kInformation = 3;
constexpr int kHint = 4;
}  // namespace severity

}  // namespace hone::lsp
