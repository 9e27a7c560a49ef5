// optimize/code_extraction.cpp: fenced-block scanning, forward detection and block selection.
#include "optimize/code_extraction.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace hone {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_code_language(const std::string& lang) {
  static const std::set<std::string> kAccepted = {"",    "cuda", "cu",  "cpp", "c++", "cc",  "cxx",
                                                  "c",   "cuh",  "h",   "hpp", "hxx", "cuda-cpp"};
  return kAccepted.count(lang) > 0;
}

// The source with comments blanked out (string and char literals kept), so that `forward` in a
// comment is not taken for code. Offsets are preserved.
std::string without_comments(std::string_view s) {
  std::string out(s);
  enum { Code, Line, Block, Str, Chr } st = Code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    char c = out[i], n = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (st) {
      case Code:
        if (c == '/' && n == '/') st = Line, out[i] = ' ';
        else if (c == '/' && n == '*') st = Block, out[i] = ' ', out[++i] = ' ';
        else if (c == '"') st = Str;
        else if (c == '\'') st = Chr;
        break;
      case Line:
        if (c == '\n') st = Code;
        else out[i] = ' ';
        break;
      case Block:
        if (c == '*' && n == '/') st = Code, out[i] = ' ', out[++i] = ' ';
        else if (c != '\n') out[i] = ' ';
        break;
      case Str:
      case Chr:
        if (c == '\\') ++i;
        else if ((st == Str && c == '"') || (st == Chr && c == '\'') || c == '\n') st = Code;
        break;
    }
  }
  return out;
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

bool is_cuda_code(const std::string& code) {
  auto c = without_comments(code);
  return c.find("__global__") != std::string::npos || c.find("<<<") != std::string::npos;
}

std::set<std::string> launched_kernels(const std::string& code) {
  static const std::regex launch(R"(([A-Za-z_]\w*)\s*(?:<[^<>;]*>)?\s*<<<)");
  std::set<std::string> out;
  auto c = without_comments(code);
  for (std::sregex_iterator it(c.begin(), c.end(), launch), end; it != end; ++it) out.insert((*it)[1]);
  return out;
}

bool defines_global(const std::string& code, const std::string& name) {
  std::regex def("__global__[^;{]*\\b" + name + R"(\s*\()");
  return std::regex_search(without_comments(code), def);
}

}  // namespace

std::vector<CodeBlock> find_code_blocks(std::string_view md) {
  std::vector<CodeBlock> blocks;
  std::size_t pos = 0;
  bool inside = false;
  char fence_char = 0;
  std::size_t fence_len = 0;
  CodeBlock current;
  while (pos <= md.size()) {
    auto eol = md.find('\n', pos);
    std::string_view line = md.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t indent = line.find_first_not_of(' ');
    std::string_view body = indent == std::string_view::npos ? std::string_view() : line.substr(indent);
    char c = body.empty() ? '\0' : body[0];
    std::size_t run = 0;
    if ((c == '`' || c == '~') && indent <= 3) run = body.find_first_not_of(c) == std::string_view::npos ? body.size() : body.find_first_not_of(c);
    if (!inside && run >= 3) {
      std::string info = trim(body.substr(run));
      if (c == '`' && info.find('`') != std::string::npos) {
        // Inline code such as ```x``` on one line is not a fence.
      } else {
        inside = true;
        fence_char = c;
        fence_len = run;
        current = CodeBlock{};
        auto sp = info.find_first_of(" \t{");
        current.language = lower(info.substr(0, sp));
        current.closed = false;
      }
    } else if (inside && c == fence_char && run >= fence_len && trim(body.substr(run)).empty()) {
      current.closed = true;
      blocks.push_back(std::move(current));
      inside = false;
    } else if (inside) {
      current.code.append(line);
      current.code.push_back('\n');
    }
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  if (inside) blocks.push_back(std::move(current));
  return blocks;
}

std::optional<std::vector<std::string>> forward_parameters(std::string_view source) {
  std::string code = without_comments(source);
  static const std::regex name(R"(\bforward\s*\()");
  for (std::sregex_iterator it(code.begin(), code.end(), name), end; it != end; ++it) {
    std::size_t open = static_cast<std::size_t>(it->position(0) + it->length(0)) - 1;
    int depth = 0;
    std::size_t close = std::string::npos;
    for (std::size_t i = open; i < code.size(); ++i) {
      if (code[i] == '(') ++depth;
      if (code[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) continue;
    auto next = code.find_first_not_of(" \t\r\n", close + 1);
    // A definition: the body follows (possibly after noexcept / -> return type).
    auto brace = code.find('{', close);
    auto semi = code.find(';', close);
    if (next == std::string::npos || brace == std::string::npos || (semi != std::string::npos && semi < brace)) continue;
    if (code[next] != '{' && code.compare(next, 8, "noexcept") != 0 && code.compare(next, 2, "->") != 0) continue;
    std::vector<std::string> params;
    std::string cur;
    int nest = 0;
    for (std::size_t i = open + 1; i < close; ++i) {
      char c = code[i];
      if (c == '(' || c == '<' || c == '[' || c == '{') ++nest;
      if (c == ')' || c == '>' || c == ']' || c == '}') --nest;
      if (c == ',' && nest == 0) {
        params.push_back(trim(cur));
        cur.clear();
      } else {
        cur.push_back(c);
      }
    }
    if (!trim(cur).empty()) params.push_back(trim(cur));
    if (params.size() == 1 && params[0] == "void") params.clear();
    return params;
  }
  return std::nullopt;
}

namespace {

// A KernelBench answer (the user's file is a .py defining ModelNew): the last complete ```python
// (or untagged) block that defines class ModelNew is the whole proposed file.
Extraction extract_answer(const std::vector<CodeBlock>& blocks) {
  static const std::regex model_new(R"((^|\n)\s*class\s+ModelNew\b)");
  Extraction out;
  bool truncated = false;
  for (auto b = blocks.rbegin(); b != blocks.rend(); ++b) {
    if (b->language != "python" && b->language != "py" && !b->language.empty()) continue;
    if (!std::regex_search(b->code, model_new)) continue;
    if (!b->closed) {
      truncated = true;
      continue;
    }
    out.source = b->code;
    return out;
  }
  out.status = "no_code";
  out.reason = truncated ? "the reply ends inside its code block (cut off, e.g. by max_tokens): the answer is incomplete"
                         : "the reply has no ```python block defining class ModelNew: answer with the complete KernelBench "
                           "answer file (ModelNew, its CUDA/C++ in load_inline sources) in one ```python block";
  return out;
}

}  // namespace

Extraction extract_kernel(std::string_view reply, std::string_view target_language,
                          const std::optional<ExpectedSignature>& expected) {
  Extraction out;
  auto blocks = find_code_blocks(reply);
  if (target_language == "python") return extract_answer(blocks);
  if (blocks.empty()) {
    out.status = "no_code";
    out.reason = "the reply has no fenced code block; answer with the complete kernel file in one ```cuda block";
    return out;
  }
  int chosen = -1;
  bool truncated_candidate = false, other_language = false;
  for (int i = static_cast<int>(blocks.size()) - 1; i >= 0; --i) {
    const auto& b = blocks[static_cast<std::size_t>(i)];
    if (!is_code_language(b.language)) {
      if (forward_parameters(b.code) || b.code.find("forward") != std::string::npos) other_language = true;
      continue;
    }
    if (!forward_parameters(b.code)) continue;
    if (!b.closed) {
      truncated_candidate = true;
      continue;
    }
    chosen = i;
    break;
  }
  if (chosen < 0) {
    out.status = "no_code";
    if (truncated_candidate)
      out.reason = "the reply ends inside its code block (cut off, e.g. by max_tokens): the kernel is incomplete";
    else if (other_language)
      out.reason = "the reply's forward is not C++/CUDA code (e.g. Python): write the kernel file itself in a ```cuda block";
    else
      out.reason = "none of the reply's " + std::to_string(blocks.size()) +
                   " code block(s) defines the host function forward(...)";
    return out;
  }
  std::string source = blocks[static_cast<std::size_t>(chosen)].code;
  // Kernels launched by forward but defined in earlier blocks travel with it.
  std::string prefix;
  for (const auto& name : launched_kernels(source)) {
    if (defines_global(source, name)) continue;
    for (int i = 0; i < chosen; ++i) {
      const auto& b = blocks[static_cast<std::size_t>(i)];
      if (b.closed && is_code_language(b.language) && defines_global(b.code, name) &&
          prefix.find(b.code) == std::string::npos) {
        prefix += b.code + "\n";
        break;
      }
    }
  }
  source = prefix + source;
  if (target_language == "cpp" && is_cuda_code(source)) {
    out.status = "wrong_signature";
    out.reason = "the code is CUDA (__global__ or <<<...>>>) but this kernel is a CPU .cpp file built by the host "
                 "compiler: write plain C++";
    return out;
  }
  if (expected && expected->raw_params >= 0) {
    auto params = forward_parameters(source);
    int n = static_cast<int>(params->size());
    bool fits_raw = n == expected->raw_params || n == expected->raw_params + 1;
    bool fits_torch = n == expected->torch_params;
    if (!fits_raw && !fits_torch) {
      out.status = "wrong_signature";
      out.reason = "forward takes " + std::to_string(n) + " parameter(s); the task expects `" + expected->raw +
                   "` (raw form) or `" + expected->torch + "` (torch form)";
      return out;
    }
  }
  out.source = std::move(source);
  return out;
}

}  // namespace hone
