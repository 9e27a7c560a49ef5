// toolchain/diagnostics.cpp: parsing nvcc/EDG, gcc, ptxas, linker and nvcc driver messages.
#include "toolchain/diagnostics.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "toolchain/demangle.h"
#include "toolchain/source_text.h"

namespace hone::toolchain {
namespace fs = std::filesystem;
using protocol::Diagnostic;
using protocol::DiagnosticSource;
using protocol::Severity;

namespace {

Severity severity_of(const std::string& word) {
  if (word.find("error") != std::string::npos || word == "fatal") return Severity::Error;
  if (word == "warning") return Severity::Warning;
  return Severity::Note;
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// EDG's caret line counts characters (code points) while its echo of the source line holds UTF-8
// bytes: the byte offset in `text` of its `chars`-th character (past its end: size() + the rest).
std::size_t byte_offset_of_char(std::string_view text, std::size_t chars) {
  std::size_t i = 0;
  for (; chars > 0 && i < text.size(); --chars) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  }
  return i + chars;
}

class Parser {
 public:
  explicit Parser(const DiagnosticContext& c) : c_(c) {}

  std::vector<Diagnostic> run(std::string_view output) {
    static const std::regex edg_re(
        R"(^(.+)\((\d+)\): (error|warning|remark|catastrophic error|fatal error|internal error)(?: #\d+(?:-[A-Z])?)?: (.*)$)");
    static const std::regex gcc_re(R"(^(.+?):(\d+):(?:(\d+):)? (error|warning|note|fatal error): (.*)$)");
    static const std::regex gcc_required_re(R"(^(.+?):(\d+):(?:(\d+):)?\s+required from here)");
    static const std::regex ptxas_re(R"(^ptxas\s+(error|warning|fatal)\s*:\s*(.*)$)");
    static const std::regex nvcc_re(R"(^nvcc\s+(error|warning|fatal)\s*:\s*(.*)$)");
    static const std::regex ld_func_re(R"(^(?:\S*/)?(?:ld|ld\.\w+|collect2)?:?\s*.*: in function [`']([^']*)':$)");
    static const std::regex ld_undef_re(R"(undefined reference to [`']([^']*)')");
    static const std::regex ld_re(R"(^(?:\S*/)?ld(?:\.\w+)?: (.*)$)");

    const auto lines = lines_of(output);
    std::optional<Diagnostic> required_from;  // gcc "required from here" in a user file
    std::string ld_function;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      std::smatch m;
      if (std::regex_match(line, m, edg_re)) {
        Diagnostic d = located(m[1].str(), std::stoi(m[2].str()), 0, severity_of(m[3].str()), m[4].str(), DiagnosticSource::Nvcc);
        const bool relocated = d.file != resolve(m[1].str()).string();
        std::string source_echo;
        // Follow-on lines: the source echo, the caret, "detected during ..." context.
        while (i + 1 < lines.size() && !lines[i + 1].empty() && !std::regex_match(lines[i + 1], edg_re)) {
          const std::string& next = lines[i + 1];
          std::size_t caret = next.find('^');
          if (caret != std::string::npos && trim(next) == "^") {
            if (d.column == 0 && caret >= 2 && !relocated) d.column = edg_column(d, source_echo, caret - 2);
          } else if (source_echo.empty() && next.rfind("  ", 0) == 0 && d.column == 0 &&
                     next.find("detected during") == std::string::npos) {
            source_echo = next;
          } else {
            std::string extra(trim(next));
            relocate_from_context(d, extra);
            d.message += "\n" + extra;
          }
          ++i;
        }
        add(std::move(d));
      } else if (std::regex_search(line, m, gcc_required_re)) {
        fs::path f = resolve(m[1].str());
        if (is_user_file(f))
          required_from = Diagnostic{f.string(), std::stoi(m[2].str()), m[3].matched ? std::stoi(m[3].str()) : 0,
                                     Severity::Note, "", DiagnosticSource::Host};
      } else if (std::regex_match(line, m, gcc_re) && names_a_file(m[1].str())) {
        Diagnostic d = located(m[1].str(), std::stoi(m[2].str()), m[3].matched ? std::stoi(m[3].str()) : 0,
                               severity_of(m[4].str()), m[5].str(), DiagnosticSource::Host);
        if (required_from && !is_user_file(resolve(m[1].str())) && d.severity == Severity::Error) {
          d.message = d.message + " (in " + m[1].str() + ":" + m[2].str() + ")";
          d.file = required_from->file;
          d.line = required_from->line;
          d.column = required_from->column;
        }
        if (d.severity != Severity::Note) required_from.reset();
        // Skip gcc's source echo and caret lines ("   12 |   x = y;" / "      |       ^").
        while (i + 1 < lines.size() && lines[i + 1].find(" | ") != std::string::npos &&
               trim(lines[i + 1].substr(0, lines[i + 1].find('|'))).find_first_not_of("0123456789") == std::string::npos)
          ++i;
        add(std::move(d));
      } else if (std::regex_match(line, m, ptxas_re)) {
        add(ptxas_diagnostic(severity_of(m[1].str()), m[2].str()));
      } else if (std::regex_match(line, m, nvcc_re)) {
        add(Diagnostic{c_.user_file.string(), 0, 0, severity_of(m[1].str()), m[2].str(), DiagnosticSource::Nvcc});
      } else if (std::regex_match(line, m, ld_func_re)) {
        ld_function = m[1].str();
      } else if (std::regex_search(line, m, ld_undef_re)) {
        add(linker_reference(m[1].str(), ld_function));
      } else if (std::regex_match(line, m, ld_re)) {
        add(Diagnostic{c_.user_file.string(), 0, 0, Severity::Error, m[1].str(), DiagnosticSource::Linker});
      }
    }
    return std::move(out_);
  }

 private:
  fs::path resolve(const std::string& file) const {
    fs::path p(file);
    if (file.size() > 1 && file.front() == '"' && file.back() == '"') p = file.substr(1, file.size() - 2);
    if (p.is_relative() && !p.empty() && p.string().front() != '<') {
      std::error_code ec;
      fs::path in_work = (c_.work_dir / p).lexically_normal();
      fs::path in_kernel = (c_.kernel_dir / p).lexically_normal();
      p = fs::exists(in_work, ec) || !fs::exists(in_kernel, ec) ? in_work : in_kernel;
    }
    return p.lexically_normal();
  }

  // Whether gcc's "NAME:12:5: error:" names a file: any name without a space (a path the compiler
  // made up, such as <command-line>, too), one with spaces only when it is there ("/w/my
  // project/k.cu"), so that prose ending in "x:1: error:" is not taken for a location.
  bool names_a_file(const std::string& name) const {
    if (name.find(' ') == std::string::npos) return true;
    std::error_code ec;
    const fs::path p = resolve(name);
    return is_user_file(p) || fs::is_regular_file(p, ec);
  }

  bool is_user_file(const fs::path& p) const {
    return std::find(c_.user_files.begin(), c_.user_files.end(), p) != c_.user_files.end();
  }

  bool is_hone_file(const fs::path& p) const {
    if (p.string() == "<hone entry>") return true;
    const std::string share = c_.share_include.lexically_normal().string();
    return !share.empty() && p.string().rfind(share, 0) == 0;
  }

  Diagnostic located(const std::string& file, int line, int column, Severity severity, std::string message,
                     DiagnosticSource source) const {
    fs::path p = resolve(file);
    Diagnostic d{p.string(), line, column, severity, std::move(message), source};
    if (is_hone_file(p) && c_.forward) {
      std::string where = p.string() == "<hone entry>" ? std::string("hone's generated entry")
                                                        : p.lexically_relative(c_.share_include).string() + ":" + std::to_string(line);
      d.message = "in hone's entry for forward (" + where + "): " + d.message;
      d.file = c_.forward->file.string();
      d.line = c_.forward->line;
      d.column = 0;
    }
    return d;
  }

  // The 1-based byte column in the line as written of EDG's caret under the `caret`-th character
  // of its echo of the line.
  int edg_column(const Diagnostic& d, const std::string& echo_line, std::size_t caret) const {
    const std::string echo = echo_line.size() >= 2 ? echo_line.substr(2) : std::string();
    const std::size_t at = byte_offset_of_char(echo, caret);
    auto text = c_.user_texts.find(fs::path(d.file));
    if (text == c_.user_texts.end() || d.line <= 0 || at > echo.size()) return static_cast<int>(at + 1);
    std::istringstream in(text->second);
    std::string src;
    for (int i = 0; i < d.line && std::getline(in, src); ++i) {
    }
    if (!src.empty() && src.back() == '\r') src.pop_back();
    if (src == echo) return static_cast<int>(at + 1);
    // The rest of the line after the caret is usually unexpanded: match it at the end.
    const std::string rest = echo.substr(at);
    if (!rest.empty() && src.size() >= rest.size() && src.compare(src.size() - rest.size(), rest.size(), rest) == 0)
      return static_cast<int>(src.size() - rest.size() + 1);
    // Else the token under the caret, when the line has it once.
    std::size_t end = at;
    while (end < echo.size() && is_ident_char(echo[end])) ++end;
    const std::string token = echo.substr(at, std::max<std::size_t>(end - at, 1));
    const std::size_t first = src.find(token);
    if (first != std::string::npos && src.find(token, first + 1) == std::string::npos) return static_cast<int>(first + 1);
    return static_cast<int>(std::min(at, src.size()) + 1);
  }

  // EDG: "detected during instantiation of ... at line 12 of /path/kernel.cu" moves an error
  // that sits in a library header to the user's line.
  void relocate_from_context(Diagnostic& d, const std::string& extra) const {
    static const std::regex at_line(R"(at line (\d+) of (.+)$)");
    std::smatch m;
    if (is_user_file(fs::path(d.file)) || !std::regex_search(extra, m, at_line)) return;
    fs::path p = resolve(m[2].str());
    if (!is_user_file(p)) return;
    d.message += " (in " + d.file + ":" + std::to_string(d.line) + ")";
    d.file = p.string();
    d.line = std::stoi(m[1].str());
    d.column = 0;
  }

  Diagnostic ptxas_diagnostic(Severity severity, const std::string& message) const {
    static const std::regex fn_re(R"('(_Z[^']+|[A-Za-z_]\w*)')");
    Diagnostic d{c_.user_file.string(), 0, 0, severity, message, DiagnosticSource::Ptxas};
    std::smatch m;
    if (std::regex_search(message, m, fn_re)) {
      const std::string mangled = m[1].str();
      if (c_.kernel_line)
        if (auto line = c_.kernel_line(mangled)) d.line = *line;
      const std::string readable = demangle(mangled);
      if (auto at = d.message.find("'" + mangled + "'"); readable != mangled && at != std::string::npos)
        d.message.replace(at + 1, mangled.size(), readable);
    }
    return d;
  }

  // The first line of the user's file that uses the symbol, after the referencing function.
  Diagnostic linker_reference(const std::string& symbol, const std::string& in_function) const {
    std::string message = "undefined reference to `" + symbol + "'";
    if (!in_function.empty()) message += " in " + in_function;
    message += ": declared but not defined in this kernel or the libraries it links";
    Diagnostic d{c_.user_file.string(), 0, 0, Severity::Error, message, DiagnosticSource::Linker};
    const std::string name = function_base_name(symbol);
    if (name.empty()) return d;
    const std::string code = blank_comments(c_.user_text, true);
    const std::regex use_re("\\b" + name + "\\b");
    const std::string caller = function_base_name(in_function);
    LineIndex index(code);
    std::size_t from = 0;
    if (!caller.empty()) {
      std::smatch m;
      const std::regex caller_re("\\b" + caller + "\\s*\\(");
      if (std::regex_search(code, m, caller_re)) from = static_cast<std::size_t>(m.position(0) + m.length(0));
    }
    std::smatch m;
    std::string tail = code.substr(from);
    if (!std::regex_search(tail, m, use_re)) {
      from = 0;
      tail = code;
    }
    if (from == 0 ? std::regex_search(tail, m, use_re) : true) {
      std::size_t at = from + static_cast<std::size_t>(m.position(0));
      d.line = index.line_of(at);
      std::size_t line_start = code.rfind('\n', at == 0 ? 0 : at - 1);
      d.column = static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1) + 1);
    }
    return d;
  }

  void add(Diagnostic d) {
    auto same = [&](const Diagnostic& o) {
      return o.file == d.file && o.line == d.line && o.column == d.column && o.severity == d.severity && o.message == d.message;
    };
    if (std::none_of(out_.begin(), out_.end(), same)) out_.push_back(std::move(d));
  }

  const DiagnosticContext& c_;
  std::vector<Diagnostic> out_;
};

}  // namespace

std::vector<Diagnostic> parse_compiler_output(std::string_view output, const DiagnosticContext& context) {
  return Parser(context).run(output);
}

}  // namespace hone::toolchain
