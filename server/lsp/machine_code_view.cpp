// lsp/machine_code_view.cpp: the machine-code reply and its annotated text.
#include "lsp/machine_code_view.h"

#include <algorithm>
#include <vector>

namespace hone::lsp {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool same_file(const std::string& file, const fs::path& kernel) {
  return !file.empty() && fs::path(file).lexically_normal() == kernel.lexically_normal();
}

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string pad_left(const std::string& s, std::size_t width) { return std::string(width > s.size() ? width - s.size() : 0, ' ') + s; }

}  // namespace

std::string counter_title(const std::string& metric) {
  if (metric == "smsp__sass_inst_executed") return "warp inst";
  if (metric == "smsp__sass_thread_inst_executed") return "thread inst";
  if (metric == "smsp__sass_thread_inst_executed_pred_on") return "pred on";
  if (metric == "smsp__sass_sectors_mem_global") return "sectors";
  if (metric == "smsp__sass_sectors_mem_global_ideal") return "ideal";
  const std::string prefix = "smsp__sass_";
  return metric.rfind(prefix, 0) == 0 ? metric.substr(prefix.size()) : metric;
}

json machine_code_json(const MachineCode& code, const fs::path& kernel, const std::string& uri) {
  json lines = json::array();
  std::string text;
  for (const auto& l : code.lines) {
    json line = {{"text", l.text}, {"file", l.file}, {"line", l.line > 0 ? l.line - 1 : -1}, {"inFile", same_file(l.file, kernel)}};
    if (l.counters) line["counters"] = *l.counters;
    lines.push_back(std::move(line));
    text += l.text + "\n";
  }
  json out = {{"uri", uri}, {"kind", code.kind}, {"symbol", code.symbol}, {"name", code.name}, {"functions", code.functions},
              {"mapped", code.mapped}, {"text", text}, {"lines", lines}};
  if (code.kind == "sass") {
    json sources = json::array();
    for (const auto& s : code.source_counters)
      sources.push_back({{"file", s.file}, {"line", s.line - 1}, {"inFile", same_file(s.file, kernel)}, {"counters", s.counters}});
    out["counters"] = {{"metrics", code.counter_metrics}, {"note", code.counters_note}, {"sourceLines", sources}};
    if (code.profiled_at) out["counters"]["profiledAt"] = *code.profiled_at;
  }
  return out;
}

std::string annotated_listing(const MachineCode& code) {
  const std::vector<std::string>& metrics = code.counter_metrics;
  std::vector<std::size_t> widths;
  for (const auto& m : metrics) widths.push_back(counter_title(m).size());
  for (const auto& l : code.lines)
    if (l.counters)
      for (std::size_t c = 0; c < metrics.size(); ++c) {
        auto v = l.counters->find(metrics[c]);
        if (v != l.counters->end()) widths[c] = std::max(widths[c], grouped(v->second).size());
      }
  auto columns = [&](auto cell) {
    std::string s;
    for (std::size_t c = 0; c < metrics.size(); ++c) s += pad_left(cell(c), widths[c]) + "  ";
    return metrics.empty() ? s : s + "| ";
  };
  std::string out;
  if (code.kind == "sass" && !code.counters_note.empty()) out += "// " + code.counters_note + "\n";
  if (!metrics.empty()) out += "// " + columns([&](std::size_t c) { return counter_title(metrics[c]); }) + "\n";
  for (const auto& l : code.lines) {
    std::string line = l.text;
    if (!metrics.empty()) {
      const std::string prefix = columns([&](std::size_t c) -> std::string {
        if (!l.counters) return "";
        auto v = l.counters->find(metrics[c]);
        return v == l.counters->end() ? "" : grouped(v->second);
      });
      line = "   " + prefix + line;  // "   " lines the columns up under the header's "// "
    }
    const std::string mark = l.line > 0 ? fs::path(l.file).filename().string() + ":" + std::to_string(l.line) : "";
    out += line + (mark.empty() ? "" : std::string(line.size() < 56 ? 56 - line.size() : 1, ' ') + "// " + mark) + "\n";
  }
  return out;
}

}  // namespace hone::lsp
