// profile/ptx_lines.h: source lines of the instructions a suggestion is about, read from the
// `.loc` directives of a kernel's PTX (nvcc -lineinfo; no GPU needed). Only lines of the user's
// file are kept: hone's build puts `#line 1 "<user path>"` before the source, so the PTX names the
// user's file directly and lines need no offset; code inlined from headers is placed at its call
// site in the user's file when the `.loc` says `inlined_at` one. Built once per report by
// build_profile_report; pure, any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hone::profile {

// What kind of instruction a line holds.
enum class AccessKind { GlobalLoad, GlobalStore, LocalLoad, LocalStore, SharedLoad, SharedStore, DivergentBranch };

struct InstructionSite {
  AccessKind kind = AccessKind::GlobalLoad;
  int bits = 0;  // access width (element size x vector length); 0 for branches
  int line = 0;  // 1-based line in the user's file
};

struct PtxSourceLines {
  // Per kernel, by mangled name (the `.entry` name): its instructions that carry a user-file line.
  std::map<std::string, std::vector<InstructionSite>> kernels;

  // The sorted, distinct lines of `mangled`'s instructions of the given kinds, narrower than or
  // as wide as `max_bits` when it is > 0. Empty when none is known.
  std::vector<int> lines(const std::string& mangled, const std::vector<AccessKind>& kinds, int max_bits = 0) const;
};

// Reads PTX text; `user_file` is the path the PTX's `.file` table names for the user's source.
// Never throws: text it does not understand yields no sites.
PtxSourceLines parse_ptx_source_lines(std::string_view ptx, const std::string& user_file);

}  // namespace hone::profile
