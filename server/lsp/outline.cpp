// lsp/outline.cpp: anchors from the engine's kernel outline, located in the buffer's lines.
#include "lsp/outline.h"

#include <cctype>
#include <chrono>
#include <map>
#include <mutex>

#include "engine/kernel_files.h"

namespace hone::lsp {

bool is_kernel_document(const Document& document) { return is_hone_kernel(document.path, document.text); }

namespace {

struct Pairing {
  int version = 0;
  bool paired = false;
  std::chrono::steady_clock::time_point at;
};
std::mutex pairing_mutex;
std::map<std::string, Pairing> pairings;

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::size_t declarator_column(std::string_view line, std::string_view name) {
  if (name.empty()) return std::string_view::npos;
  std::size_t first_word = std::string_view::npos;
  for (std::size_t at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && is_word_char(line[at - 1])) || (end < line.size() && is_word_char(line[end]))) continue;
    if (first_word == std::string_view::npos) first_word = at;
    std::size_t next = line.find_first_not_of(" \t", end);
    if (next != std::string_view::npos && (line[next] == '(' || line[next] == '<')) return at;
  }
  return first_word;
}

bool cached_pairing(const Document& document, const std::function<bool()>& find) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(pairing_mutex);
    auto it = pairings.find(document.uri);
    if (it != pairings.end() && it->second.version == document.version && now - it->second.at < std::chrono::seconds(1))
      return it->second.paired;
  }
  const bool paired = find();
  std::lock_guard lock(pairing_mutex);
  pairings[document.uri] = {document.version, paired, now};
  return paired;
}

void forget_pairing(const std::string& uri) {
  std::lock_guard lock(pairing_mutex);
  pairings.erase(uri);
}

namespace {

// The last outline of each document, by its text's hash: every lens, hint, hover and code action
// asks for it, and the source analysis behind it reads the whole buffer (a 12 000-line file: about
// 70 ms a time).
struct CachedOutline {
  std::size_t text_hash = 0;
  Outline outline;
};
std::mutex outline_mutex;
std::map<std::string, CachedOutline> outlines;

Outline analyse_outline(const Document& document) {
  Outline outline;
  KernelOutline k = kernel_outline(document.path, document.text);
  if (k.forward_line) outline.forward_line = *k.forward_line - 1;
  const BufferLines lines(document.text);
  for (const auto& global : k.globals) {
    KernelAnchor anchor{global.name, global.line - 1, 0};
    std::size_t at = declarator_column(lines.line(anchor.line), global.name);
    anchor.column = at == std::string_view::npos ? 0 : at;
    outline.kernels.push_back(anchor);
  }
  return outline;
}

}  // namespace

Outline outline_of(const Document& document) {
  const std::size_t text_hash = std::hash<std::string_view>{}(document.text);
  {
    std::lock_guard lock(outline_mutex);
    auto it = outlines.find(document.uri);
    if (it != outlines.end() && it->second.text_hash == text_hash) return it->second.outline;
  }
  Outline outline = analyse_outline(document);
  std::lock_guard lock(outline_mutex);
  outlines[document.uri] = {text_hash, outline};
  return outline;
}

void forget_outline(const std::string& uri) {
  std::lock_guard lock(outline_mutex);
  outlines.erase(uri);
}

}  // namespace hone::lsp
