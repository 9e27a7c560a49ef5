// sandbox/include_guard.cpp: scans a candidate's preprocessor directives and inline assembly for
// files it would read from outside its folder tree.
#include "sandbox/include_guard.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "support/hash.h"

namespace hone::sandbox {
namespace {

namespace fs = std::filesystem;

bool is_within(const fs::path& path, const fs::path& root) {
  auto r = root.begin(), p = path.begin();
  for (; r != root.end(); ++r, ++p) {
    if (r->empty()) continue;
    if (p == path.end() || *r != *p) return false;
  }
  return true;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The text with comments blanked (newlines kept, so positions stay), literals kept.
std::string strip_comments(std::string_view text) {
  std::string out(text);
  enum { code, line_comment, block_comment, string_lit, char_lit } state = code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    char c = out[i], next = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (state) {
      case code:
        if (c == '/' && next == '/')
          state = line_comment, out[i] = ' ';
        else if (c == '/' && next == '*')
          state = block_comment, out[i] = ' ', out[++i] = ' ';
        else if (c == '"')
          state = string_lit;
        else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(out[i - 1]))))
          state = char_lit;
        break;
      case line_comment:
        if (c == '\n')
          state = code;
        else
          out[i] = ' ';
        break;
      case block_comment:
        if (c == '*' && next == '/')
          state = code, out[i] = ' ', out[++i] = ' ';
        else if (c != '\n')
          out[i] = ' ';
        break;
      case string_lit:
      case char_lit:
        if (c == '\\')
          ++i;
        else if ((state == string_lit && c == '"') || (state == char_lit && c == '\'') || c == '\n')
          state = code;
        break;
    }
  }
  return out;
}

struct Checker {
  fs::path root_lexical;
  fs::path root_real;
  std::set<fs::path> visited;
  std::vector<IncludeViolation> violations;
  std::vector<LocalFile> files;

  void add(const fs::path& file, int line, int column, std::string message) {
    violations.push_back({file, line, column, std::move(message)});
  }

  void check_file(const fs::path& file, std::string_view raw) {
    if (!visited.insert(file).second) return;
    files.push_back({file, std::string(raw)});
    const std::string text = strip_comments(raw);
    check_assembler(file, text);
    std::size_t pos = 0;
    int line = 1;
    while (pos < text.size()) {
      std::size_t end = pos;
      int lines_spanned = 1;
      // A logical line: backslash-newline continues it.
      while (end < text.size() && text[end] != '\n') {
        if (text[end] == '\\' && end + 1 < text.size() && text[end + 1] == '\n') ++end, ++lines_spanned;
        ++end;
      }
      check_directive(file, text.substr(pos, end - pos), line);
      line += lines_spanned;
      pos = end + 1;
    }
  }

  void check_assembler(const fs::path& file, const std::string& text) {
    for (const char* directive : {".incbin", ".include"}) {
      std::string lower = text;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      for (std::size_t at = lower.find(directive); at != std::string::npos; at = lower.find(directive, at + 1)) {
        bool member_access = at > 0 && (ident_char(lower[at - 1]) || lower[at - 1] == ')' || lower[at - 1] == ']') &&
                             !(at > 1 && lower[at - 2] == '\\');
        std::size_t after = at + std::string_view(directive).size();
        if ((member_access && std::string_view(directive) == ".include") ||
            (after < lower.size() && ident_char(lower[after])))
          continue;
        int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
        std::size_t line_start = text.rfind('\n', at);
        int column = static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
        add(file, line, column,
            std::string("the assembler directive ") + directive +
                " reads a file into the program; candidates may not use it");
      }
    }
  }

  void check_directive(const fs::path& file, const std::string& logical, int line) {
    std::size_t i = logical.find_first_not_of(" \t");
    if (i == std::string::npos || logical[i] != '#') return;
    const int column = static_cast<int>(i) + 1;
    i = logical.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos) return;
    std::size_t word_end = i;
    while (word_end < logical.size() && ident_char(logical[word_end])) ++word_end;
    const std::string word = logical.substr(i, word_end - i);
    if (word == "embed") {
      add(file, line, column, "#embed reads a file into the program; candidates may not use it");
      return;
    }
    if (word != "include" && word != "include_next" && word != "import") return;
    std::size_t op = logical.find_first_not_of(" \t\\\n", word_end);
    if (op == std::string::npos || (logical[op] != '"' && logical[op] != '<')) {
      add(file, line, column,
          "#" + word + " with a macro instead of a file name cannot be checked; write the file name literally");
      return;
    }
    const char close = logical[op] == '"' ? '"' : '>';
    std::size_t close_at = logical.find(close, op + 1);
    if (close_at == std::string::npos) return;  // the compiler reports the malformed directive
    check_name(file, line, column, logical.substr(op + 1, close_at - op - 1), close == '"');
  }

  void check_name(const fs::path& file, int line, int column, const std::string& name, bool quoted) {
    const fs::path p(name);
    const std::string shown = quoted ? "\"" + name + "\"" : "<" + name + ">";
    const std::string outside = "; candidates may include only files in the kernel's folder (" + root_lexical.string() +
                                ") and the toolchain's headers";
    if (p.is_absolute()) {
      add(file, line, column, "#include " + shown + " names an absolute path" + outside);
      return;
    }
    const bool climbs = std::any_of(p.begin(), p.end(), [](const fs::path& part) { return part == ".."; });
    if (!quoted && climbs) {
      add(file, line, column, "#include " + shown + " climbs out with '..'" + outside);
      return;
    }
    std::error_code ec;
    fs::path resolved = (root_lexical / p).lexically_normal();  // <...>: found through -I <kernel folder>
    if (quoted) {
      resolved = (file.parent_path() / p).lexically_normal();
      if (!is_within(resolved, root_lexical)) {
        add(file, line, column, "#include " + shown + " reaches " + resolved.string() + outside);
        return;
      }
      if (!fs::is_regular_file(resolved, ec) && climbs) {
        add(file, line, column, "#include " + shown + " uses '..' but names no file in the kernel's folder" + outside);
        return;
      }
      // Not beside the including file: the compiler looks in the kernel's folder next.
      if (!fs::is_regular_file(resolved, ec)) resolved = (root_lexical / p).lexically_normal();
    }
    if (!fs::is_regular_file(resolved, ec)) return;  // a toolchain header, or missing (the compiler says so)
    const fs::path real = fs::canonical(resolved, ec);
    if (ec || !is_within(real, root_real)) {
      add(file, line, column, "#include " + shown + " is a link to " + real.string() + outside);
      return;
    }
    try {
      check_file(resolved, read_file(resolved));
    } catch (const std::exception& e) {
      add(file, line, column, "#include " + shown + " cannot be read: " + e.what());
    }
  }
};

}  // namespace

IncludeScan scan_includes(const fs::path& source, std::string_view text, const fs::path& kernel_root) {
  Checker c;
  c.root_lexical = fs::absolute(kernel_root).lexically_normal();
  std::error_code ec;
  c.root_real = fs::weakly_canonical(c.root_lexical, ec);
  if (ec) c.root_real = c.root_lexical;
  c.check_file(fs::absolute(source).lexically_normal(), text);
  return {std::move(c.violations), std::move(c.files)};
}

std::vector<IncludeViolation> check_includes(const fs::path& source, std::string_view text,
                                             const fs::path& kernel_root) {
  return scan_includes(source, text, kernel_root).violations;
}

std::string format_violation(const IncludeViolation& v) {
  return v.file.string() + ":" + std::to_string(v.line) + ":" + std::to_string(v.column) + ": error: " + v.message;
}

}  // namespace hone::sandbox
