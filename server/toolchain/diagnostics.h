// toolchain/diagnostics.h: compiler output -> diagnostics {file, line, column, severity, message,
// source} in the user's terms: nvcc/EDG (`file(12): error: ...` and its caret line for the
// column), gcc/clang (`file:12:5: error: ...`), ptxas (`ptxas error : Entry function '_Z..' uses
// too much shared data`, pointed at the __global__'s line), the linker (undefined references,
// pointed at the first use in the user's file), and nvcc itself (`nvcc fatal : ...`). Errors
// inside hone's generated entry point at the user's `forward`. Used by the KernelBuilder; pure,
// any thread.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/build_report.h"
#include "toolchain/kernel_source.h"

namespace hone::toolchain {

struct DiagnosticContext {
  std::filesystem::path user_file;      // the kernel as the user knows it (the #line name)
  std::string user_text;                // its contents (saved or not)
  std::filesystem::path work_dir;       // the compiler's working directory (for relative paths)
  std::filesystem::path kernel_dir;     // the kernel's folder (a local header's second home)
  std::filesystem::path share_include;  // hone's headers: diagnostics there point at `forward`
  std::optional<SourceLocation> forward;
  std::vector<std::filesystem::path> user_files;  // the kernel and its local headers
  // Their texts (the kernel's unsaved buffer when there is one), to place EDG's carets: EDG echoes
  // the macro-expanded line, so its caret column is found again in the line as written.
  std::map<std::filesystem::path, std::string> user_texts;
  // The line of a kernel (by mangled name) in the user's file, for ptxas messages.
  std::function<std::optional<int>(const std::string& mangled)> kernel_line;
};

// All diagnostics found in the output (stdout and stderr of one compiler command), deduplicated,
// in order.
std::vector<protocol::Diagnostic> parse_compiler_output(std::string_view output, const DiagnosticContext& context);

}  // namespace hone::toolchain
