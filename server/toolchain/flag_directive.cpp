// toolchain/flag_directive.cpp: reading, checking and writing a kernel's `// hone: flags=` line.
#include "toolchain/flag_directive.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace hone::toolchain {
namespace {

const std::regex& directive_re() {
  static const std::regex re(R"(^\s*//\s*hone\s*:\s*flags\s*=(.*)$)");
  return re;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Lines with their endings, so a rewrite keeps the file's own.
std::vector<std::string> lines_of(std::string_view source) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < source.size()) {
    std::size_t nl = source.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? source.size() : nl + 1;
    out.emplace_back(source.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string without_ending(std::string line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

// -f options that read or write files, load code or change what the build produces rather than
// the code it generates.
bool file_or_tool_option(const std::string& name) {
  static const char* const refused[] = {"plugin", "profile", "auto-profile", "dump", "debug", "record", "stack-usage",
                                        "callgraph", "sanitize", "instrument", "coverage", "test-coverage",
                                        "diagnostics", "opt-info", "save-optimization-record", "lto", "syntax-only",
                                        "preprocessed", "working-directory", "embed", "ident"};
  for (const char* r : refused)
    if (name.rfind(r, 0) == 0) return true;
  return name.find("prefix-map") != std::string::npos;
}

}  // namespace

std::string flag_refusal(std::string_view flag_view, KernelLanguage language) {
  const std::string flag(flag_view);
  static const std::regex opt(R"(^-O[0-3s]$)");
  static const std::regex define(R"(^-D[A-Za-z_]\w*(=[\w.+-]*)?$)");
  static const std::regex machine(R"(^-m[a-z0-9][a-z0-9=._+-]*$)");
  static const std::regex feature(R"(^-f(no-)?([a-z0-9][a-z0-9-]*)(=[a-z0-9_.,+-]+)?$)");
  static const std::regex nvcc(
      R"(^--?(use_fast_math|extra-device-vectorization|restrict|maxrregcount=\d+|(ftz|prec-div|prec-sqrt|fmad)=(true|false)))"
      R"(|-Xptxas=-O[0-3]$)");
  if (std::regex_match(flag, opt) || std::regex_match(flag, define)) return "";
  if (language == KernelLanguage::Cuda) {
    if (std::regex_match(flag, nvcc)) return "";
    return "`" + flag + "` is not a flag a .cu kernel may name: `// hone: flags=` takes nvcc's code-generation flags "
           "(-O0..-O3, -DNAME=VALUE, -use_fast_math, --extra-device-vectorization, -maxrregcount=N, --ftz, --prec-div, "
           "--prec-sqrt, --fmad=true|false, --restrict, -Xptxas=-ON)";
  }
  if (flag == "-Ofast" || std::regex_match(flag, machine)) return "";
  std::smatch m;
  if (std::regex_match(flag, m, feature) && !file_or_tool_option(m[2].str())) return "";
  return "`" + flag + "` is not a flag a .cpp kernel may name: `// hone: flags=` takes code-generation flags "
         "(-O0..-O3, -Os, -Ofast, -DNAME=VALUE, -m... such as -march=native, -f... such as -ffast-math; no flag that "
         "reads or writes files)";
}

FlagDirectiveParse parse_flag_directive(std::string_view source, KernelLanguage language) {
  FlagDirectiveParse out;
  int number = 0;
  for (const std::string& raw : lines_of(source)) {
    ++number;
    const std::string line = without_ending(raw);
    std::smatch m;
    if (!std::regex_match(line, m, directive_re())) continue;
    if (out.directive) {
      out.error = "a second `// hone: flags=` line (line " + std::to_string(out.directive->line) +
                  " has one): name every flag on one line";
      out.error_line = number;
      return out;
    }
    FlagDirective d{number, words(m[1].str())};
    for (const auto& f : d.flags) {
      if (std::string why = flag_refusal(f, language); !why.empty()) {
        out.error = why;
        out.error_line = number;
        return out;
      }
    }
    out.directive = std::move(d);
  }
  return out;
}

std::string add_flag_directive(std::string_view source, const std::vector<std::string>& flags) {
  if (flags.empty()) return std::string(source);
  std::vector<std::string> lines = lines_of(source);
  for (auto& raw : lines) {
    const std::string line = without_ending(raw);
    std::smatch m;
    if (!std::regex_match(line, m, directive_re())) continue;
    const std::string ending = raw.substr(line.size());
    std::vector<std::string> merged = merge_flags(words(m[1].str()), flags);
    std::string text = "// hone: flags=";
    for (std::size_t i = 0; i < merged.size(); ++i) text += (i ? " " : "") + merged[i];
    raw = text + ending;
    std::string out;
    for (const auto& l : lines) out += l;
    return out;
  }
  std::string text = "// hone: flags=";
  for (std::size_t i = 0; i < flags.size(); ++i) text += (i ? " " : "") + flags[i];
  const bool crlf = !lines.empty() && lines.front().size() >= 2 && lines.front().ends_with("\r\n");
  return text + (crlf ? "\r\n" : "\n") + std::string(source);
}

std::vector<std::string> merge_flags(std::vector<std::string> base, const std::vector<std::string>& extra) {
  for (const auto& f : extra)
    if (std::find(base.begin(), base.end(), f) == base.end()) base.push_back(f);
  return base;
}

}  // namespace hone::toolchain
