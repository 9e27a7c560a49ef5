// support/unified_diff.cpp: line sequences through dtl's Myers diff and unified hunks.
#include "support/unified_diff.h"

#include <dtl/dtl.hpp>

#include <sstream>
#include <vector>

namespace hone {
namespace {

std::vector<std::string> lines_of(std::string_view s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    auto eol = s.find('\n', pos);
    out.emplace_back(s.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos));
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return out;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, const std::string& label) {
  if (before == after) return {};
  auto a = lines_of(before), b = lines_of(after);
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  out << "--- a/" << label << "\n+++ b/" << label << "\n";
  diff.printUnifiedFormat(out);
  return out.str();
}

}  // namespace hone
