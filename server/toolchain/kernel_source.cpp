// toolchain/kernel_source.cpp: source analysis of a kernel file and its local headers.
#include "toolchain/kernel_source.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "toolchain/constant_eval.h"
#include "toolchain/source_text.h"

namespace hone::toolchain {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxHeaders = 256;

struct IncludeLine {
  std::string name;
  bool quoted = false;
};

// #include lines of a file (comments blanked, literals kept).
std::vector<IncludeLine> includes_of(std::string_view commentless) {
  static const std::regex re(R"re((?:^|\n)[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>))re");
  std::vector<IncludeLine> out;
  for (std::cregex_iterator it(commentless.data(), commentless.data() + commentless.size(), re), end; it != end; ++it) {
    if ((*it)[1].matched) out.push_back({(*it)[1].str(), true});
    else out.push_back({(*it)[2].str(), false});
  }
  return out;
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Blanks preprocessor lines (with their continuations) so that code scans skip them.
std::string blank_preprocessor(std::string code) {
  std::size_t i = 0;
  while (i < code.size()) {
    std::size_t eol = code.find('\n', i);
    if (eol == std::string::npos) eol = code.size();
    std::string_view line(code.data() + i, eol - i);
    if (!trim(line).empty() && trim(line).front() == '#') {
      std::size_t j = i;
      while (true) {
        std::size_t e = code.find('\n', j);
        if (e == std::string::npos) e = code.size();
        bool continued = e > j && code[e - 1] == '\\';
        std::fill(code.begin() + static_cast<std::ptrdiff_t>(j), code.begin() + static_cast<std::ptrdiff_t>(e), ' ');
        j = e + 1;
        if (!continued || e >= code.size()) break;
      }
      eol = j - 1;
    }
    i = eol + 1;
  }
  return code;
}

std::string ident_before(std::string_view code, std::size_t end) {
  std::size_t e = end;
  while (e > 0 && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
  std::size_t b = e;
  while (b > 0 && is_ident_char(code[b - 1])) --b;
  return std::string(code.substr(b, e - b));
}

// True when `word` occurs in `text` as a whole identifier.
bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !is_ident_char(text[at - 1]);
    const bool ends = at + word.size() == text.size() || !is_ident_char(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

std::size_t skip_space(std::string_view code, std::size_t i) {
  while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i]))) ++i;
  return i;
}

// Scans one file's code (comments, literals and preprocessor lines blanked).
class FileScanner {
 public:
  FileScanner(const fs::path& file, std::string_view code, const ConstantTable& constants, SourceFacts& facts)
      : file_(file), code_(code), lines_(code), constants_(constants), facts_(facts) {}

  void scan_globals() {
    static const std::regex global_re(R"(\b__global__\b)");
    for (std::cregex_iterator it(code_.data(), code_.data() + code_.size(), global_re), end; it != end; ++it)
      read_global(static_cast<std::size_t>(it->position(0)));
  }

  void scan_launches() {
    std::size_t pos = 0;
    while ((pos = code_.find("<<<", pos)) != std::string_view::npos) {
      std::size_t close = code_.find(">>>", pos + 3);
      if (close == std::string_view::npos) break;
      std::size_t name_end = pos;
      // Template arguments before <<<: kernel<float, 4><<<...>>>.
      std::size_t e = name_end;
      while (e > 0 && std::isspace(static_cast<unsigned char>(code_[e - 1]))) --e;
      if (e > 0 && code_[e - 1] == '>') {
        int depth = 0;
        std::size_t k = e;
        while (k > 0) {
          --k;
          if (code_[k] == '>') ++depth;
          if (code_[k] == '<' && --depth == 0) break;
        }
        name_end = k;
      }
      std::string name = ident_before(code_, name_end);
      auto args = split_top_level(code_.substr(pos + 3, close - pos - 3));
      if (!name.empty() && args.size() >= 2) {
        LaunchSite site{name, file_, lines_.line_of(pos), args[1], constants_.evaluate(args[1])};
        facts_.launches.push_back(std::move(site));
      }
      pos = close + 3;
    }
  }

  std::optional<int> find_forward() const {
    static const std::regex fwd_re(R"(\bforward\s*\()");
    for (std::cregex_iterator it(code_.data(), code_.data() + code_.size(), fwd_re), end; it != end; ++it) {
      std::size_t at = static_cast<std::size_t>(it->position(0));
      // A definition or declaration: a return type before it, not a member access or a call.
      std::size_t b = at;
      while (b > 0 && std::isspace(static_cast<unsigned char>(code_[b - 1]))) --b;
      if (b == 0) continue;
      char prev = code_[b - 1];
      if (prev == '.' || prev == ':' || prev == '(' || prev == ',' || prev == '=') continue;
      if (prev == '>' && b >= 2 && code_[b - 2] == '-') continue;
      std::string word = ident_before(code_, b);
      if (!(is_ident_char(prev) || prev == '>' || prev == '*' || prev == '&')) continue;
      if (word == "return" || word == "else" || word == "co_return" || word == "new" || word == "throw") continue;
      if (!at_namespace_scope(at)) continue;
      return lines_.line_of(at);
    }
    return std::nullopt;
  }

 private:
  // True when every brace enclosing `at` opens a namespace or an extern "C" block.
  bool at_namespace_scope(std::size_t at) const {
    std::vector<bool> stack;  // true: a namespace-like brace
    for (std::size_t i = 0; i < at; ++i) {
      if (code_[i] == '{') {
        std::string_view before = code_.substr(0, i);
        std::size_t stmt = before.find_last_of(";{}");
        std::string_view head = trim(before.substr(stmt == std::string_view::npos ? 0 : stmt + 1));
        bool ns = has_word(head, "namespace") || head.rfind("extern", 0) == 0;
        stack.push_back(ns);
      } else if (code_[i] == '}' && !stack.empty()) {
        stack.pop_back();
      }
    }
    return std::all_of(stack.begin(), stack.end(), [](bool ns) { return ns; });
  }

  void read_global(std::size_t at) {
    // The declaration runs from the end of the previous statement to the parameter list.
    std::size_t stmt = code_.substr(0, at).find_last_of(";{}");
    stmt = stmt == std::string_view::npos ? 0 : stmt + 1;
    std::optional<std::int64_t> bounds;
    std::size_t i = stmt;
    std::size_t name_paren = std::string_view::npos;
    while (i < code_.size()) {
      char c = code_[i];
      if (c == ';' || c == '{') break;
      if (is_ident_char(c)) {
        std::size_t b = i;
        while (i < code_.size() && is_ident_char(code_[i])) ++i;
        std::string_view word = code_.substr(b, i - b);
        std::size_t p = skip_space(code_, i);
        if ((word == "__launch_bounds__" || word == "__attribute__" || word == "__declspec" || word == "alignas") &&
            p < code_.size() && code_[p] == '(') {
          std::size_t close = matching_bracket(code_, p);
          if (close == std::string_view::npos) return;
          if (word == "__launch_bounds__") {
            auto args = split_top_level(code_.substr(p + 1, close - p - 1));
            if (!args.empty()) bounds = constants_.evaluate(args[0]);
          }
          i = close + 1;
          continue;
        }
        if (word == "template" && p < code_.size() && code_[p] == '<') {
          std::size_t close = matching_bracket(code_, p);
          if (close == std::string_view::npos) return;
          i = close + 1;
          continue;
        }
        continue;
      }
      if (c == '(' && i > at) {
        name_paren = i;
        break;
      }
      ++i;
    }
    if (name_paren == std::string_view::npos) return;
    std::string name = ident_before(code_, name_paren);
    if (name.empty()) return;
    std::size_t name_at = name_paren;
    while (name_at > 0 && !is_ident_char(code_[name_at - 1])) --name_at;
    GlobalFunction g{name, file_, lines_.line_of(name_at - 1), bounds};
    // A prototype and a definition of the same kernel: keep one entry, at the definition.
    std::size_t close = matching_bracket(code_, name_paren);
    bool definition = false;
    if (close != std::string_view::npos) {
      std::size_t after = code_.find_first_of(";{", close);
      definition = after != std::string_view::npos && code_[after] == '{';
    }
    auto same = std::find_if(facts_.globals.begin(), facts_.globals.end(), [&](const GlobalFunction& o) { return o.name == name; });
    if (same == facts_.globals.end()) {
      facts_.globals.push_back(std::move(g));
    } else if (definition) {
      if (!g.launch_bounds) g.launch_bounds = same->launch_bounds;
      *same = std::move(g);
    } else if (!same->launch_bounds) {
      same->launch_bounds = bounds;
    }
  }

  fs::path file_;
  std::string_view code_;
  LineIndex lines_;
  const ConstantTable& constants_;
  SourceFacts& facts_;
};

bool is_torch_header(const std::string& name) {
  return name.rfind("torch/", 0) == 0 || name.rfind("ATen/", 0) == 0 || name.rfind("c10/", 0) == 0;
}

}  // namespace

std::string_view to_string(KernelLanguage language) { return language == KernelLanguage::Cuda ? "cuda" : "cpp"; }
std::string_view to_string(KernelForm form) { return form == KernelForm::Raw ? "raw" : "torch"; }

std::span<const KernelFileType> kernel_file_types() {
  static constexpr KernelFileType kTypes[] = {{".cu", KernelLanguage::Cuda, false},
                                              {".cuh", KernelLanguage::Cuda, true},
                                              {".cpp", KernelLanguage::Cpp, false},
                                              {".cc", KernelLanguage::Cpp, false},
                                              {".cxx", KernelLanguage::Cpp, false}};
  return kTypes;
}

std::optional<KernelFileType> kernel_file_type(const fs::path& path) {
  const std::string ext = path.extension().string();
  for (const KernelFileType& t : kernel_file_types())
    if (t.extension == ext) return t;
  return std::nullopt;
}

std::optional<KernelLanguage> language_for_path(const fs::path& path) {
  if (auto type = kernel_file_type(path)) return type->language;
  return std::nullopt;
}

std::string unknown_extension_message(const fs::path& path) {
  std::string cuda, cpp;
  for (const KernelFileType& t : kernel_file_types())
    (t.language == KernelLanguage::Cuda ? cuda : cpp) += (t.language == KernelLanguage::Cuda ? cuda : cpp).empty()
                                                             ? std::string(t.extension)
                                                             : "/" + std::string(t.extension);
  return path.string() + ": unknown kernel file type '" + path.extension().string() + "': hone builds " + cuda +
         " with nvcc for the GPU and " + cpp + " with the host compiler for the CPU";
}

std::string no_form_message() {
  return "hone cannot tell the kernel's form: include \"hone.h\" (raw form: forward(hone::In<T>..., "
         "hone::Out<T>..., hone::Stream)) or <torch/extension.h> (torch form: torch::Tensor forward(torch::Tensor ...))";
}

std::string no_forward_message(std::optional<KernelForm> form) {
  std::string example = form == KernelForm::Torch
                            ? "torch::Tensor forward(torch::Tensor x, ...)"
                            : "void forward(hone::In<float> x, ..., hone::Out<float> out, hone::Stream stream)";
  return "no forward function: hone calls the kernel's host entry point `" + example + "` at namespace scope";
}

const GlobalFunction* SourceFacts::find_global(std::string_view name) const {
  for (const auto& g : globals)
    if (g.name == name) return &g;
  return nullptr;
}

SourceFacts analyze_kernel_source(const fs::path& path, std::string_view text) {
  auto language = language_for_path(path);
  if (!language) throw std::runtime_error(unknown_extension_message(path));
  SourceFacts facts;
  facts.language = *language;
  const fs::path kernel_path = fs::absolute(path).lexically_normal();
  const fs::path kernel_dir = kernel_path.parent_path();

  struct FileText {
    fs::path path;
    std::string commentless;
  };
  std::vector<FileText> files{{kernel_path, blank_comments(text, false)}};
  std::set<fs::path> seen{kernel_path};
  bool raw = false, torch = false;
  for (std::size_t k = 0; k < files.size() && files.size() < kMaxHeaders; ++k) {
    const fs::path dir = files[k].path.parent_path();
    for (const auto& inc : includes_of(files[k].commentless)) {
      if (inc.name == "hone.h") raw = true;
      if (is_torch_header(inc.name)) torch = true;
      if (!inc.quoted) continue;
      for (const fs::path& base : {dir, kernel_dir}) {
        fs::path candidate = (base / inc.name).lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        if (seen.insert(candidate).second) {
          if (auto contents = read_text(candidate)) {
            facts.headers.push_back({candidate, *contents});
            files.push_back({candidate, blank_comments(*contents, false)});
          }
        }
        break;
      }
    }
  }
  if (raw) facts.form = KernelForm::Raw;
  else if (torch) facts.form = KernelForm::Torch;

  ConstantTable constants;
  std::vector<std::string> code;
  for (const auto& f : files) {
    constants.scan(blank_comments(f.commentless, true));
    code.push_back(blank_preprocessor(blank_comments(f.commentless, true)));
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    FileScanner scanner(files[k].path, code[k], constants, facts);
    scanner.scan_globals();
    scanner.scan_launches();
    if (!facts.forward)
      if (auto line = scanner.find_forward()) facts.forward = SourceLocation{files[k].path, *line};
  }
  return facts;
}

}  // namespace hone::toolchain
