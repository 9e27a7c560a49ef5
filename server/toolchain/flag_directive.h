// toolchain/flag_directive.h: `// hone: flags=-march=native -ffast-math`, a line in a kernel naming
// compiler flags that are part of the kernel: every build of the file (hone build, check, the
// editor, the optimizer's candidates) adds them to the compiler command, so a proposal the tuner
// verified with flags carries them in its own text and the applied file rebuilds to the same
// binary. Only code-generation flags are accepted (a kernel's text is untrusted: no output paths,
// plugins, include paths or profile files). Pure functions, any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolchain/kernel_source.h"

namespace hone::toolchain {

struct FlagDirective {
  int line = 0;                    // 1-based
  std::vector<std::string> flags;  // as written, whitespace-separated
};

struct FlagDirectiveParse {
  std::optional<FlagDirective> directive;  // nullopt: the kernel names no flags
  std::string error;                       // a flag that is not accepted, or a second line
  int error_line = 0;
};

// The kernel's `// hone: flags=` line (one at most), with every flag checked for its language.
FlagDirectiveParse parse_flag_directive(std::string_view source, KernelLanguage language);

// Why a flag may not appear in a kernel's `// hone: flags=` line; empty when it may.
std::string flag_refusal(std::string_view flag, KernelLanguage language);

// The source with `flags` added to its `// hone: flags=` line (those it names already stay once);
// a kernel without one gets one as its first line. An empty `flags` leaves the source as it is.
std::string add_flag_directive(std::string_view source, const std::vector<std::string>& flags);

// `extra` appended to `base`, skipping flags `base` already has (the build's flags: the
// kernel's own line first, then the caller's).
std::vector<std::string> merge_flags(std::vector<std::string> base, const std::vector<std::string>& extra);

}  // namespace hone::toolchain
