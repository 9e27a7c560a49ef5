// toolchain/demangle.cpp: demangling through the C++ ABI library.
#include "toolchain/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "toolchain/source_text.h"

namespace hone::toolchain {

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return symbol;
  return out.get();
}

std::string function_base_name(const std::string& demangled) {
  std::string s = demangled;
  // Drop the parameter list: the last top-level "(...)" (and any trailing qualifiers).
  if (!s.empty()) {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s.resize(i);
        break;
      }
    }
  }
  // Drop trailing template arguments.
  while (!s.empty() && s.back() == '>') {
    int depth = 0;
    std::size_t i = s.size();
    while (i-- > 0) {
      if (s[i] == '>') ++depth;
      if (s[i] == '<' && --depth == 0) break;
    }
    s.resize(i == std::string::npos ? 0 : i);
  }
  std::size_t b = s.size();
  while (b > 0 && is_ident_char(s[b - 1])) --b;
  return s.substr(b);
}

}  // namespace hone::toolchain
