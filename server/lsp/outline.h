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

// .cu, .cpp, .cc, .cxx: files that may be kernels (headers are tracked but never built).
bool is_kernel_path(const std::filesystem::path& path);

// Whether hone treats an open document as a kernel (builds it, publishes its diagnostics, shows
// lenses): every .cu; a .cpp/.cc/.cxx only when it is a hone kernel: it includes hone.h or
// torch/extension.h (or ATen), defines `forward`, or names its task (`// hone: task=` or a
// hone.toml entry). Ordinary C++ files are left to other tools. Reads hone.toml files; any thread.
bool is_kernel_document(const Document& document);

// The outline of an open document; empty when the source cannot be analysed.
Outline outline_of(const Document& document);

}  // namespace hone::lsp
