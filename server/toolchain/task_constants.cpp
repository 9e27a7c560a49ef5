// toolchain/task_constants.cpp: the task's __init__ scalars as constexprs in namespace hone::task.
#include "toolchain/task_constants.h"

#include <cctype>

namespace hone::toolchain {
namespace {

bool identifier(const std::string& s) {
  if (s.empty() || (!std::isalpha(static_cast<unsigned char>(s[0])) && s[0] != '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A C++ double literal for Python's text of a float (no header needed for inf and nan).
std::string double_literal(const std::string& text) {
  if (text == "inf") return "__builtin_huge_val()";
  if (text == "-inf") return "(-__builtin_huge_val())";
  if (text == "nan") return "__builtin_nan(\"\")";
  if (text.find_first_of(".eE") == std::string::npos) return text + ".0";
  return text;
}

}  // namespace

std::string task_constants_prelude(const std::vector<TaskConstant>& constants) {
  std::string body;
  for (const auto& c : constants) {
    if (!identifier(c.name)) continue;
    if (c.kind == "int")
      body += "constexpr long long " + c.name + " = " + c.literal + "LL;\n";
    else if (c.kind == "float")
      body += "constexpr double " + c.name + " = " + double_literal(c.literal) + ";\n";
    else if (c.kind == "bool")
      body += "constexpr bool " + c.name + " = " + (c.literal == "true" || c.literal == "True" ? "true" : "false") + ";\n";
  }
  if (body.empty()) return "";
  return "#line 1 \"<hone task constants>\"\nnamespace hone { namespace task {\n" + body + "} }\n";
}

}  // namespace hone::toolchain
