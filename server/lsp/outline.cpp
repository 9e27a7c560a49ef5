// lsp/outline.cpp: anchors from the engine's kernel outline, located in the buffer's lines.
#include "lsp/outline.h"

#include "engine/kernel_files.h"

namespace hone::lsp {

bool is_kernel_document(const Document& document) { return is_hone_kernel(document.path, document.text); }

Outline outline_of(const Document& document) {
  Outline outline;
  KernelOutline k = kernel_outline(document.path, document.text);
  if (k.forward_line) outline.forward_line = *k.forward_line - 1;
  for (const auto& global : k.globals) {
    KernelAnchor anchor{global.name, global.line - 1, 0};
    std::string_view line = line_text(document.text, anchor.line);
    std::size_t at = line.find(global.name);
    anchor.column = at == std::string_view::npos ? 0 : at;
    outline.kernels.push_back(anchor);
  }
  return outline;
}

}  // namespace hone::lsp
