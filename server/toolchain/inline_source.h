// toolchain/inline_source.h: one load_inline call of a KernelBench answer (issue 15) as a
// translation unit hone builds in the torch form: torch/extension.h, the call's cpp_sources, then
// its cuda_sources (load_inline's two files in one TU), each line under a `#line` directive naming
// the line of the .py file where that source line sits (found in the file's text), so the
// compiler's diagnostics point into the answer. Its `functions` become torch.ops.<ns>.<name>
// (hone/inline_entry.h); its flags, include paths and ldflags are kept. Pure; any thread.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "toolchain/kernel_source.h"

namespace hone::toolchain {

struct InlineCall {
  std::string name;
  std::vector<std::string> cpp_sources;
  std::vector<std::string> cuda_sources;
  std::vector<std::string> functions;
  std::vector<std::string> extra_cflags;
  std::vector<std::string> extra_cuda_cflags;
  std::vector<std::string> extra_ldflags;
  std::vector<std::string> extra_include_paths;
};

struct InlineSource {
  std::filesystem::path kernel;     // a name for the TU beside the answer: <answer>.<name>.cu|.cpp
  KernelLanguage language = KernelLanguage::Cpp;  // Cuda when the call has cuda_sources
  std::string text;                 // the TU, #line directives into the .py
  std::vector<std::string> flags;   // compiler flags from the call (empty strings dropped)
  std::vector<std::string> functions;
  std::string problem;              // non-empty: the call cannot be built (why)
};

// `answer`: the .py's path; `answer_text`: its contents.
InlineSource inline_source(const std::filesystem::path& answer, const std::string& answer_text, const InlineCall& call);

// The 1-based line of `answer_text` where each line of `source` sits (0 where it cannot be
// found): lines are matched in order, ignoring surrounding whitespace; blank lines follow the
// previous line.
std::vector<int> source_lines_in(const std::string& answer_text, const std::string& source);

}  // namespace hone::toolchain
