// toolchain/instruction_facts.cpp: PTX and SASS instruction classification.
#include "toolchain/instruction_facts.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <vector>

#include "toolchain/source_text.h"

namespace hone::toolchain {

namespace {

constexpr std::size_t kMaxTensorCoreOpcodes = 16;

std::vector<std::string> split_dots(std::string_view opcode) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = opcode.find('.', start);
    parts.emplace_back(opcode.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

void note_tensor_core(protocol::InstructionFacts& f, const std::string& opcode) {
  f.tensor_core = true;
  auto& list = f.tensor_core_instructions;
  if (list.size() < kMaxTensorCoreOpcodes && std::find(list.begin(), list.end(), opcode) == list.end())
    list.push_back(opcode);
}

// Width in bits of a PTX memory access: vector count times the element type's bits.
std::optional<int> ptx_width(const std::vector<std::string>& parts) {
  int vec = 1;
  std::optional<int> bits;
  for (const auto& p : parts) {
    if (p == "v2") vec = 2;
    else if (p == "v4") vec = 4;
    else if (p == "v8") vec = 8;
    else if (p.size() >= 2 && (p[0] == 'b' || p[0] == 'u' || p[0] == 's' || p[0] == 'f') &&
             std::all_of(p.begin() + 1, p.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      bits = std::stoi(p.substr(1));
  }
  if (!bits) return std::nullopt;
  return vec * *bits;
}

void classify_ptx(protocol::InstructionFacts& f, const std::string& opcode, std::string_view operands) {
  auto parts = split_dots(opcode);
  const std::string& op = parts[0];
  const bool global = std::find(parts.begin(), parts.end(), "global") != parts.end();
  const bool local = std::find(parts.begin(), parts.end(), "local") != parts.end();
  if (op == "ld" || op == "ldu") {
    if (global) {
      if (auto w = ptx_width(parts)) ++f.global_loads[*w];
    } else if (local) {
      ++f.local_loads;
    }
  } else if (op == "st") {
    if (global) {
      if (auto w = ptx_width(parts)) ++f.global_stores[*w];
    } else if (local) {
      ++f.local_stores;
    }
  } else if (op == "cp" && parts.size() > 1 && parts[1] == "async" && global &&
             std::find(parts.begin(), parts.end(), "bulk") == parts.end()) {
    // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: a global load of cp-size bytes.
    auto args = split_top_level(operands);
    if (args.size() >= 3) {
      try {
        ++f.global_loads[std::stoi(args[2]) * 8];
      } catch (...) {
      }
    }
  } else if (op == "mma" || op == "wgmma" || (op == "wmma" && parts.size() > 1 && parts[1] == "mma") ||
             (op == "tcgen05" && parts.size() > 1 && parts[1] == "mma")) {
    note_tensor_core(f, opcode);
  }
}

// SASS: LDG.E.128 -> 128, LDG.E.U8 -> 8, LDG.E -> 32.
int sass_width(const std::vector<std::string>& parts) {
  for (const auto& p : parts) {
    if (p == "64") return 64;
    if (p == "128") return 128;
    if (p == "256") return 256;
    if (p == "U8" || p == "S8") return 8;
    if (p == "U16" || p == "S16") return 16;
  }
  return 32;
}

bool sass_tensor_core(const std::string& op) {
  static const char* kOps[] = {"HMMA", "HGMMA", "IMMA", "IGMMA", "DMMA", "BMMA", "BGMMA", "QMMA", "QGMMA", "OMMA"};
  for (const char* k : kOps)
    if (op == k) return true;
  // Blackwell's tcgen05 MMAs are issued as UTC*MMA (UTCHMMA, UTCQMMA, ...).
  return op.rfind("UTC", 0) == 0 && op.size() > 6 && op.compare(op.size() - 3, 3, "MMA") == 0;
}

void classify_sass(protocol::InstructionFacts& f, const std::string& opcode) {
  auto parts = split_dots(opcode);
  const std::string& op = parts[0];
  if (op == "LDG" || op == "LDGSTS") ++f.global_loads[sass_width(parts)];
  else if (op == "STG") ++f.global_stores[sass_width(parts)];
  else if (op == "LDL") ++f.local_loads;
  else if (op == "STL") ++f.local_stores;
  else if (sass_tensor_core(op)) note_tensor_core(f, opcode);
}

}  // namespace

std::map<std::string, protocol::InstructionFacts> parse_ptx_facts(std::string_view ptx) {
  std::map<std::string, protocol::InstructionFacts> out;
  static const std::regex entry_re(R"(\.entry\s+([A-Za-z_$][\w$]*)\s*\()");
  for (std::cregex_iterator it(ptx.data(), ptx.data() + ptx.size(), entry_re), end; it != end; ++it) {
    const std::string name = (*it)[1].str();
    std::size_t params_open = static_cast<std::size_t>(it->position(0) + it->length(0) - 1);
    std::size_t params_close = matching_bracket(ptx, params_open);
    if (params_close == std::string_view::npos) continue;
    std::size_t body_open = ptx.find_first_of("{;", params_close);
    if (body_open == std::string_view::npos || ptx[body_open] != '{') continue;  // a declaration
    std::size_t body_close = matching_bracket(ptx, body_open);
    if (body_close == std::string_view::npos) continue;
    auto& facts = out[name];
    std::istringstream body{std::string(ptx.substr(body_open + 1, body_close - body_open - 1))};
    std::string line;
    while (std::getline(body, line)) {
      std::string_view s = trim(line);
      if (s.empty() || s.front() == '.' || s.front() == '/' || s.front() == '{' || s.front() == '}' || s.back() == ':') continue;
      if (s.front() == '@') {  // predicate guard
        std::size_t sp = s.find_first_of(" \t");
        if (sp == std::string_view::npos) continue;
        s = trim(s.substr(sp));
      }
      std::size_t sp = s.find_first_of(" \t;");
      std::string opcode(s.substr(0, sp));
      std::string_view operands = sp == std::string_view::npos ? std::string_view() : s.substr(sp);
      if (!operands.empty() && operands.back() == ';') operands.remove_suffix(1);
      classify_ptx(facts, opcode, trim(operands));
    }
  }
  return out;
}

std::map<std::string, protocol::InstructionFacts> parse_sass_facts(std::string_view sass) {
  std::map<std::string, protocol::InstructionFacts> out;
  static const std::regex func_re(R"(^\s*Function\s*:\s*(\S+))");
  // "        /*0070*/                   @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
  static const std::regex insn_re(R"(^\s*/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_:]+)*))");
  protocol::InstructionFacts* current = nullptr;
  std::istringstream in{std::string(sass)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, func_re)) {
      current = &out[m[1].str()];
    } else if (current && std::regex_search(line, m, insn_re)) {
      classify_sass(*current, m[1].str());
    }
  }
  return out;
}

}  // namespace hone::toolchain
