// lsp/documents.h: the editor's open buffers (what gets compiled, saved or not), incremental
// edits in the negotiated position encoding (UTF-16 by default, UTF-8 when the client offers it),
// and file URI <-> path. Written on the reader thread; read from any thread as copies.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/protocol.h"

namespace hone::lsp {

enum class PositionEncoding { utf16, utf8 };

struct Document {
  std::string uri;
  std::filesystem::path path;
  std::string language_id;
  int version = 0;
  std::string text;
};

// Byte offset of an LSP position; a character past the line's end means the end of that line,
// a line past the end means the end of the text.
std::size_t offset_of(std::string_view text, Position position, PositionEncoding encoding);
// The LSP position of a byte offset (clamped to the text).
Position position_of(std::string_view text, std::size_t offset, PositionEncoding encoding);
// Line `line` (0-based) without its line break; empty past the end.
std::string_view line_text(std::string_view text, int line);
// The lines of one text, found once: line(n) without rescanning from the start (line_text does,
// so a loop over many anchors of a long file would be quadratic).
class BufferLines {
 public:
  explicit BufferLines(std::string_view text);
  // Line `line` (0-based) without its line break; empty past the end (as line_text).
  std::string_view line(int line) const;

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;  // offset of each line's first byte
};
// The length of a line in the encoding's units.
int line_length(std::string_view text, int line, PositionEncoding encoding);
// A byte column within a line (as compilers report them) converted to the encoding's units.
int column_in_encoding(std::string_view line, std::size_t byte_column, PositionEncoding encoding);

// file:///a%20b/k.cu -> /a b/k.cu; nullopt for other schemes or malformed URIs.
std::optional<std::filesystem::path> path_from_uri(std::string_view uri);
std::string uri_from_path(const std::filesystem::path& path);

class DocumentStore {
 public:
  // Reader thread. open/change return an error text for input they cannot apply (a change to a
  // document that is not open, a non-file URI); the store is left unchanged then.
  std::optional<std::string> open(const TextDocumentItem& item);
  std::optional<std::string> change(const DidChangeParams& params, PositionEncoding encoding);
  void close(const std::string& uri);
  // Any thread.
  std::optional<Document> get(const std::string& uri) const;
  std::vector<Document> all() const;
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Document> documents_;
};

}  // namespace hone::lsp
