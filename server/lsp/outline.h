// lsp/outline.h: where the editor features anchor in a kernel's buffer: the line of `forward` and
// each __global__ function's name (from the toolchain's source analysis, 0-based LSP lines and
// byte columns), and which files are kernels at all. Any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
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

// .cu, .cpp, .cc, .cxx: files hone builds as kernels (headers are tracked but not built).
bool is_kernel_path(const std::filesystem::path& path);

// The outline of an open document; empty when the source cannot be analysed.
Outline outline_of(const Document& document);

}  // namespace hone::lsp
