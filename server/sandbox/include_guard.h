// sandbox/include_guard.h: defence in depth before a candidate is compiled: its #include
// directives (and those of the local headers it includes) may not reach outside the kernel's
// folder tree, and file-reading tricks (computed includes, #embed, the assembler's .incbin) are
// refused. The sandboxed build would fail on them anyway; this gives a clear diagnostic first.
// Called by the engine before each build (Engine::build); reads only files inside the kernel's
// folder tree; any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace hone::sandbox {

struct IncludeViolation {
  std::filesystem::path file;  // the file holding the directive
  int line = 0;                // 1-based
  int column = 0;              // 1-based, at the directive
  std::string message;         // what is wrong and what to do
};

// Checks `text` (the contents of `source`, e.g. the editor buffer) and, recursively, every local
// header it includes that lies inside `kernel_root`. Quoted includes resolve against the including
// file's folder; one that resolves outside `kernel_root` (by "..", an absolute path, or a symbolic
// link) is a violation, as is any <...> include with an absolute path or "..".
std::vector<IncludeViolation> check_includes(const std::filesystem::path& source, std::string_view text,
                                             const std::filesystem::path& kernel_root);

// A file of the kernel's folder tree that a compile reads, with the contents the check saw.
struct LocalFile {
  std::filesystem::path path;  // absolute, normal
  std::string contents;
};

// What check_includes finds, plus the files it walked: `source` (with `text`) and the closure of
// the local headers it includes, each inside `kernel_root` (quoted includes resolve against the
// including file's folder, then `kernel_root`, as the compiler's -I does; <...> includes that
// name a file in `kernel_root` count too). A confined build is shown exactly these files.
struct IncludeScan {
  std::vector<IncludeViolation> violations;
  std::vector<LocalFile> files;  // in discovery order, `source` first
};
IncludeScan scan_includes(const std::filesystem::path& source, std::string_view text,
                          const std::filesystem::path& kernel_root);

// "file:line:column: error: message", the compiler's diagnostic format.
std::string format_violation(const IncludeViolation& v);

}  // namespace hone::sandbox
