// toolchain/ptxas_report.cpp: reading ptxas's "info" lines.
#include "toolchain/ptxas_report.h"

#include <regex>
#include <sstream>

namespace hone::toolchain {

PtxasReport parse_ptxas_verbose(std::string_view output) {
  static const std::regex entry_re(R"(ptxas info\s*: Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(ptxas info\s*: Function properties for (\S+))");
  static const std::regex frame_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(ptxas info\s*: Used (\d+) registers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[\d+\])");

  PtxasReport report;
  std::string current_entry;  // the entry whose "Used" line comes next
  std::string props_of;       // the function whose properties line comes next
  std::istringstream in{std::string(output)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) {
      current_entry = m[1].str();
      if (!report.kernels.count(current_entry)) report.order.push_back(current_entry);
      report.kernels[current_entry];
      props_of.clear();
    } else if (std::regex_search(line, m, props_re)) {
      props_of = m[1].str();
    } else if (std::regex_search(line, m, frame_re)) {
      if (!props_of.empty() && report.kernels.count(props_of)) {
        auto& k = report.kernels[props_of];
        k.stack_frame_bytes = std::stoll(m[1].str());
        k.spill_store_bytes = std::stoll(m[2].str());
        k.spill_load_bytes = std::stoll(m[3].str());
      }
      props_of.clear();
    } else if (std::regex_search(line, m, used_re)) {
      if (current_entry.empty()) continue;
      auto& k = report.kernels[current_entry];
      k.registers = std::stoll(m[1].str());
      std::smatch s;
      k.static_shared_bytes = std::regex_search(line, s, smem_re) ? std::stoll(s[1].str()) : 0;
      std::int64_t cmem = 0;
      bool any = false;
      for (std::sregex_iterator it(line.begin(), line.end(), cmem_re), end; it != end; ++it) {
        cmem += std::stoll((*it)[1].str());
        any = true;
      }
      if (any) k.constant_bytes = cmem;
    }
  }
  return report;
}

}  // namespace hone::toolchain
