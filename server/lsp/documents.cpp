// lsp/documents.cpp: position arithmetic over UTF-8 text, URI conversion (Boost.URL), the store.
#include "lsp/documents.h"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace hone::lsp {
namespace {

// Offsets of the start of `line` and of its line break (\n, \r\n or \r end a line).
std::pair<std::size_t, std::size_t> line_bounds(std::string_view text, int line) {
  std::size_t start = 0;
  for (int i = 0; i < line; ++i) {
    std::size_t brk = text.find_first_of("\r\n", start);
    if (brk == std::string_view::npos) return {text.size(), text.size()};
    start = brk + ((text[brk] == '\r' && brk + 1 < text.size() && text[brk + 1] == '\n') ? 2 : 1);
  }
  std::size_t end = text.find_first_of("\r\n", start);
  return {start, end == std::string_view::npos ? text.size() : end};
}

// Bytes in the UTF-8 sequence led by `lead` (1 for stray continuation bytes).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

std::size_t units(std::size_t sequence_bytes, PositionEncoding encoding) {
  if (encoding == PositionEncoding::utf8) return sequence_bytes;
  return sequence_bytes == 4 ? 2 : 1;
}

}  // namespace

std::size_t offset_of(std::string_view text, Position position, PositionEncoding encoding) {
  auto [start, end] = line_bounds(text, position.line);
  std::size_t offset = start;
  std::size_t counted = 0;
  while (offset < end && counted < static_cast<std::size_t>(position.character)) {
    std::size_t len = std::min(sequence_length(static_cast<unsigned char>(text[offset])), end - offset);
    counted += units(len, encoding);
    offset += len;
  }
  return offset;
}

Position position_of(std::string_view text, std::size_t offset, PositionEncoding encoding) {
  offset = std::min(offset, text.size());
  Position position;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++position.line;
      line_start = i + 1;
    }
  }
  position.character = column_in_encoding(text.substr(line_start), offset - line_start, encoding);
  return position;
}

std::string_view line_text(std::string_view text, int line) {
  auto [start, end] = line_bounds(text, line);
  return text.substr(start, end - start);
}

BufferLines::BufferLines(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) starts_.push_back(i + 1);
  }
}

std::string_view BufferLines::line(int line) const {
  if (line < 0 || static_cast<std::size_t>(line) >= starts_.size()) return {};
  const std::size_t start = starts_[static_cast<std::size_t>(line)];
  std::size_t end = text_.find_first_of("\r\n", start);
  return text_.substr(start, (end == std::string_view::npos ? text_.size() : end) - start);
}

int line_length(std::string_view text, int line, PositionEncoding encoding) {
  std::string_view content = line_text(text, line);
  return column_in_encoding(content, content.size(), encoding);
}

int column_in_encoding(std::string_view line, std::size_t byte_column, PositionEncoding encoding) {
  std::size_t limit = std::min(byte_column, line.size());
  std::size_t offset = 0;
  std::size_t counted = 0;
  while (offset < limit) {
    std::size_t len = std::min(sequence_length(static_cast<unsigned char>(line[offset])), line.size() - offset);
    counted += units(len, encoding);
    offset += len;
  }
  return static_cast<int>(counted);
}

std::optional<std::filesystem::path> path_from_uri(std::string_view uri) {
  auto parsed = boost::urls::parse_uri(uri);
  if (!parsed || parsed->scheme() != "file") return std::nullopt;
  std::string path = parsed->path();  // percent-decoded
  if (path.empty() || path.front() != '/') return std::nullopt;
  return std::filesystem::path(path).lexically_normal();
}

std::string uri_from_path(const std::filesystem::path& path) {
  boost::urls::url url;
  url.set_scheme("file");
  url.set_encoded_host("");
  url.set_path(std::filesystem::absolute(path).lexically_normal().string());
  return std::string(url.buffer());
}

std::optional<std::string> DocumentStore::open(const TextDocumentItem& item) {
  auto path = path_from_uri(item.uri);
  if (!path) return "not a file URI: " + item.uri;
  std::lock_guard lock(mutex_);
  documents_[item.uri] = Document{item.uri, *path, item.languageId, item.version, item.text};
  return std::nullopt;
}

std::optional<std::string> DocumentStore::change(const DidChangeParams& params, PositionEncoding encoding) {
  std::lock_guard lock(mutex_);
  auto found = documents_.find(params.textDocument.uri);
  if (found == documents_.end()) return "didChange for a document that is not open: " + params.textDocument.uri;
  std::string text = found->second.text;
  for (const auto& change : params.contentChanges) {
    if (!change.range) {
      text = change.text;
      continue;
    }
    std::size_t begin = offset_of(text, change.range->start, encoding);
    std::size_t end = offset_of(text, change.range->end, encoding);
    if (end < begin) return "didChange range ends before it starts in " + params.textDocument.uri;
    text.replace(begin, end - begin, change.text);
  }
  found->second.text = std::move(text);
  found->second.version = params.version;
  return std::nullopt;
}

void DocumentStore::close(const std::string& uri) {
  std::lock_guard lock(mutex_);
  documents_.erase(uri);
}

std::optional<Document> DocumentStore::get(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto found = documents_.find(uri);
  if (found == documents_.end()) return std::nullopt;
  return found->second;
}

std::vector<Document> DocumentStore::all() const {
  std::lock_guard lock(mutex_);
  std::vector<Document> out;
  for (const auto& [uri, doc] : documents_) out.push_back(doc);
  return out;
}

std::size_t DocumentStore::size() const {
  std::lock_guard lock(mutex_);
  return documents_.size();
}

}  // namespace hone::lsp
