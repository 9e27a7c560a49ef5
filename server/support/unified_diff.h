// support/unified_diff.h: the unified diff between two texts, a kernel and a proposal (dtl, the diff
// template library), as `hone optimize` prints it and the extension shows it. Any thread.
#pragma once

#include <string>
#include <string_view>

namespace hone {

// "--- a/<label>\n+++ b/<label>\n@@ ... @@\n..." with 3 lines of context; empty when equal.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& label);

}  // namespace hone
