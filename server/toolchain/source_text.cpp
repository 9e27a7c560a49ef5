// toolchain/source_text.cpp: comment blanking, line index, bracket matching.
#include "toolchain/source_text.h"

#include <algorithm>
#include <cctype>

namespace hone::toolchain {

std::string blank_comments(std::string_view text, bool blank_literals) {
  std::string out(text);
  const std::size_t n = text.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < n; ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  std::size_t i = 0;
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      std::size_t end = text.find('\n', i);
      if (end == std::string_view::npos) end = n;
      blank(i, end);
      i = end;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      std::size_t end = text.find("*/", i + 2);
      end = end == std::string_view::npos ? n : end + 2;
      blank(i, end);
      i = end;
    } else if (c == 'R' && i + 1 < n && text[i + 1] == '"' && (i == 0 || !is_ident_char(text[i - 1]))) {
      // Raw string literal R"delim( ... )delim".
      std::size_t paren = text.find('(', i + 2);
      if (paren == std::string_view::npos) break;
      std::string close(1, ')');
      close.append(text.substr(i + 2, paren - i - 2)).push_back('"');
      std::size_t end = text.find(close, paren + 1);
      end = end == std::string_view::npos ? n : end + close.size();
      if (blank_literals) blank(i + 2, end - 1);
      i = end;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1])) &&
                                           i + 1 < n && std::isxdigit(static_cast<unsigned char>(text[i + 1]))))) {
      // A string or character literal (a ' between digits is a C++14 digit separator).
      std::size_t j = i + 1;
      while (j < n && text[j] != c && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      std::size_t end = std::min(j, n);
      if (blank_literals) blank(i + 1, end);
      i = end + 1;
    } else {
      ++i;
    }
  }
  return out;
}

LineIndex::LineIndex(std::string_view text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

int LineIndex::line_of(std::size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<int>(it - starts_.begin());
}

std::size_t matching_bracket(std::string_view text, std::size_t open) {
  if (open >= text.size()) return std::string_view::npos;
  const char o = text[open];
  const char c = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : o == '<' ? '>' : '\0';
  if (c == '\0') return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == o) ++depth;
    if (text[i] == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::vector<std::string> split_top_level(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    if (ch == ')' || ch == ']' || ch == '}') --depth;
    if (ch == ',' && depth == 0) {
      parts.emplace_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trim(text.substr(start));
  if (!last.empty() || !parts.empty()) parts.emplace_back(last);
  return parts;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace hone::toolchain
