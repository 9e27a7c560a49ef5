// lsp/render.cpp: diagnostic ranges for toolchain diagnostics, verdict problems and suggestions.
#include "lsp/render.h"

#include <cctype>

#include "protocol/verdict_text.h"

namespace hone::lsp {

using nlohmann::json;

namespace {

// Ends a range at the end of the identifier or token starting at `byte`, at least one character.
std::size_t token_end(std::string_view line, std::size_t byte) {
  if (byte >= line.size()) return line.size();
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t end = byte;
  if (word(line[byte])) {
    while (end < line.size() && word(line[end])) ++end;
  } else {
    ++end;
  }
  return end;
}

// The range of a 1-based line and column (0 = unknown) in `text`.
Range range_of(int line, int column, std::string_view text, PositionEncoding encoding) {
  int lsp_line = line > 0 ? line - 1 : 0;
  std::string_view content = line_text(text, lsp_line);
  Range range;
  range.start.line = range.end.line = lsp_line;
  if (line > 0 && column > 0 && static_cast<std::size_t>(column - 1) <= content.size()) {
    std::size_t byte = static_cast<std::size_t>(column - 1);
    range.start.character = column_in_encoding(content, byte, encoding);
    range.end.character = column_in_encoding(content, token_end(content, byte), encoding);
  } else {
    std::size_t indent = content.find_first_not_of(" \t");
    range.start.character = indent == std::string_view::npos ? 0 : column_in_encoding(content, indent, encoding);
    range.end.character = column_in_encoding(content, content.size(), encoding);
  }
  return range;
}

int lsp_severity(protocol::Severity s) {
  switch (s) {
    case protocol::Severity::Error: return severity::kError;
    case protocol::Severity::Warning: return severity::kWarning;
    case protocol::Severity::Note: break;
  }
  return severity::kInformation;
}

}  // namespace

json to_lsp_diagnostic(const protocol::Diagnostic& d, std::string_view text, PositionEncoding encoding) {
  const std::string source(protocol::to_string(d.source));
  return {{"range", range_of(d.line, d.column, text, encoding)},
          {"severity", lsp_severity(d.severity)},
          {"source", source == "hone" ? source : "hone " + source},
          {"message", d.message}};
}

std::vector<json> verdict_diagnostics(const protocol::Verdict& verdict, std::string_view text, int forward_line,
                                      PositionEncoding encoding) {
  std::vector<json> out;
  std::string_view content = line_text(text, forward_line);
  std::size_t at = content.find("forward");
  Range range;
  range.start.line = range.end.line = forward_line;
  range.start.character = at == std::string_view::npos ? 0 : column_in_encoding(content, at, encoding);
  range.end.character = at == std::string_view::npos ? column_in_encoding(content, content.size(), encoding)
                                                     : column_in_encoding(content, at + 7, encoding);
  auto add = [&](int severity, const std::string& message, const std::string& code) {
    out.push_back({{"range", range}, {"severity", severity}, {"source", "hone check"}, {"code", code}, {"message", message}});
  };
  const protocol::Status status = verdict.status;
  if (status != protocol::Status::Correct && status != protocol::Status::CompileError) {
    std::string message = protocol::verdict_headline(verdict).substr(std::string("✗ ").size());
    const std::string reason = verdict.reason.value_or("");
    if (!reason.empty() && message.find(reason) == std::string::npos) message += "\n" + reason;
    add(severity::kError, message, std::string(protocol::to_string(status)));
  }
  for (const protocol::Flag& flag : verdict.flags) add(severity::kWarning, flag.message, flag.id.empty() ? "flag" : flag.id);
  if (status == protocol::Status::Correct && verdict.speedup && verdict.speedup->eager && *verdict.speedup->eager < 1.0) {
    add(severity::kInformation, "slower than PyTorch eager: " + protocol::format_number(*verdict.speedup->eager) + "× its speed",
        "slower_than_eager");
  }
  return out;
}

std::optional<json> suggestion_diagnostic(const protocol::Suggestion& s, std::string_view text, PositionEncoding encoding) {
  if (!s.location || s.location->line <= 0) return std::nullopt;
  return json{{"range", range_of(s.location->line, 0, text, encoding)},
              {"severity", severity::kInformation},
              {"source", "hone profile"},
              {"code", s.id.empty() ? "suggestion" : s.id},
              {"message", protocol::suggestion_text(s)}};
}

}  // namespace hone::lsp
