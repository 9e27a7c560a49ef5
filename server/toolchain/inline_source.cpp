// toolchain/inline_source.cpp: a load_inline call -> a torch-form TU with #line into the .py.
#include "toolchain/inline_source.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace hone::toolchain {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

std::string quoted(const std::string& path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One source string with a #line wherever its line in the .py is not the next one.
std::string mapped(const std::filesystem::path& answer, const std::string& answer_text, const std::string& source) {
  const std::vector<int> where = source_lines_in(answer_text, source);
  const std::vector<std::string> lines = split_lines(source);
  std::string out;
  int next = -1;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int at = i < where.size() ? where[i] : 0;
    if (at > 0 && at != next) out += "#line " + std::to_string(at) + " " + quoted(answer.string()) + "\n";
    out += lines[i] + "\n";
    next = at > 0 ? at + 1 : (next > 0 ? next + 1 : -1);
  }
  return out;
}

bool identifier(const std::string& s) { return std::regex_match(s, std::regex(R"([A-Za-z_]\w*)")); }

}  // namespace

std::vector<int> source_lines_in(const std::string& answer_text, const std::string& source) {
  const std::vector<std::string> file = split_lines(answer_text);
  const std::vector<std::string> lines = split_lines(source);
  std::vector<int> out(lines.size(), 0);
  // A string written verbatim: the first non-blank line's text, then every line in order after it.
  std::size_t cursor = 0;
  int previous = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string want = trim(lines[i]);
    if (want.empty()) {
      if (previous > 0 && static_cast<std::size_t>(previous) < file.size() && trim(file[previous]).empty()) {
        out[i] = ++previous;
        cursor = static_cast<std::size_t>(previous);
      }
      continue;
    }
    for (std::size_t k = cursor; k < file.size(); ++k) {
      if (file[k].find(want) != std::string::npos) {
        out[i] = static_cast<int>(k) + 1;
        previous = out[i];
        cursor = k + 1;
        break;
      }
    }
  }
  return out;
}

InlineSource inline_source(const std::filesystem::path& answer, const std::string& answer_text, const InlineCall& call) {
  InlineSource s;
  const bool cuda = !call.cuda_sources.empty();
  s.language = cuda ? KernelLanguage::Cuda : KernelLanguage::Cpp;
  std::string safe;
  for (char c : call.name) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  s.kernel = answer.parent_path() / (answer.stem().string() + "." + (safe.empty() ? "ext" : safe) + (cuda ? ".cu" : ".cpp"));
  for (const auto& f : call.functions) {
    if (!identifier(f)) {
      s.problem = "load_inline(name='" + call.name + "'): functions entry '" + f + "' is not a C++ function name";
      return s;
    }
    s.functions.push_back(f);
  }
  if (s.functions.empty()) {
    s.problem = "load_inline(name='" + call.name + "') names no functions: hone registers the functions listed in "
                "`functions=[...]` (a PYBIND11_MODULE of the answer's own is not used)";
    return s;
  }
  // load_inline's main.cpp starts with torch/extension.h; its cuda.cu with torch/types.h and the CUDA runtime.
  s.text = "#include <torch/extension.h>\n";
  if (cuda) s.text += "#include <cuda.h>\n#include <cuda_runtime.h>\n";
  for (const auto& src : call.cpp_sources) s.text += mapped(answer, answer_text, src);
  for (const auto& src : call.cuda_sources) s.text += mapped(answer, answer_text, src);
  for (const auto& p : call.extra_include_paths)
    if (!p.empty()) s.flags.push_back("-I" + p);
  for (const auto& f : cuda ? call.extra_cuda_cflags : call.extra_cflags)
    if (!trim(f).empty()) s.flags.push_back(trim(f));
  if (cuda)
    for (const auto& f : call.extra_cflags)
      if (!trim(f).empty()) s.flags.insert(s.flags.end(), {"-Xcompiler", trim(f)});
  for (const auto& f : call.extra_ldflags) {
    const std::string flag = trim(f);
    if (flag.empty()) continue;
    if (flag.rfind("-l", 0) == 0 || flag.rfind("-L", 0) == 0 || !cuda)
      s.flags.push_back(flag);
    else if (flag.rfind("-Wl,", 0) == 0)
      s.flags.insert(s.flags.end(), {"-Xlinker", flag.substr(4)});
    else
      s.flags.insert(s.flags.end(), {"-Xlinker", flag});
  }
  return s;
}

}  // namespace hone::toolchain
