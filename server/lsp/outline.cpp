// lsp/outline.cpp: anchors from toolchain::analyze_kernel_source, located in the buffer's lines,
// and which open documents are kernels.
#include "lsp/outline.h"

#include "toolchain/kernel_source.h"
#include "toolchain/task_pairing.h"

namespace hone::lsp {

bool is_kernel_path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

bool is_kernel_document(const Document& document) {
  if (!is_kernel_path(document.path)) return false;
  if (document.path.extension() == ".cu") return true;
  try {
    toolchain::SourceFacts facts = toolchain::analyze_kernel_source(document.path, document.text);
    if (facts.form || facts.forward) return true;
  } catch (const std::exception&) {
    return false;
  }
  // A same-stem .py beside an ordinary C++ file is a coincidence, not a request to build it.
  toolchain::TaskPairing pairing = toolchain::find_task_for_kernel(document.path, document.text);
  return pairing.task && pairing.how != "same stem";
}

Outline outline_of(const Document& document) {
  Outline outline;
  if (!toolchain::language_for_path(document.path)) return outline;
  toolchain::SourceFacts facts;
  try {
    facts = toolchain::analyze_kernel_source(document.path, document.text);
  } catch (const std::exception&) {
    return outline;
  }
  if (facts.forward && facts.forward->line > 0 &&
      (facts.forward->file.empty() || facts.forward->file.lexically_normal() == document.path)) {
    outline.forward_line = facts.forward->line - 1;
  }
  for (const auto& global : facts.globals) {
    if (global.line <= 0) continue;
    if (!global.file.empty() && global.file.lexically_normal() != document.path) continue;
    KernelAnchor anchor{global.name, global.line - 1, 0};
    std::string_view line = line_text(document.text, anchor.line);
    std::size_t at = line.find(global.name);
    anchor.column = at == std::string_view::npos ? 0 : at;
    outline.kernels.push_back(anchor);
  }
  return outline;
}

}  // namespace hone::lsp
