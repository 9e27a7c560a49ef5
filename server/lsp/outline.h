// lsp/outline.h: where the editor features anchor in a kernel's buffer: the line of `forward` and
// each __global__ function's name (from the engine's kernel outline, as 0-based LSP lines and
// byte columns), and which open documents are kernels (engine/kernel_files.h). Any thread.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/documents.h"

namespace hone::lsp {

struct KernelAnchor {
  std::string name;       // unqualified
  int line = 0;           // 0-based line of the name
  std::size_t column = 0; // byte column of the name in that line
};

struct Outline {
  std::optional<int> forward_line;  // 0-based
  std::vector<KernelAnchor> kernels;  // those defined in the document itself
};

// Whether hone treats an open document as a kernel (builds it, publishes its diagnostics, shows
// lenses): engine/kernel_files.h's is_hone_kernel. Reads hone.toml files; any thread.
bool is_kernel_document(const Document& document);

// Whether a document has a task, as `find` says, remembered per URI and version for a second:
// lenses and code actions ask often, and the pairing reads the file system (and throws when
// there is none) on the reader thread. forget_pairing drops the memory (a task was just written).
bool cached_pairing(const Document& document, const std::function<bool()>& find);
void forget_pairing(const std::string& uri);

// The outline of an open document; empty when the source cannot be analysed. Each kernel's
// column is its declarator's name (`__launch_bounds__(256) bounds(` anchors at `bounds(`).
// Remembered per URI by the text's hash (forget_outline drops it: a closed document).
Outline outline_of(const Document& document);
void forget_outline(const std::string& uri);

// The byte column in `line` of the function name `name` as declared: the first whole word followed
// by `(` or `<`, else the first whole word; npos when the line does not hold it.
std::size_t declarator_column(std::string_view line, std::string_view name);

}  // namespace hone::lsp
