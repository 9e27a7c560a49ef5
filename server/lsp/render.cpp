// lsp/render.cpp: verdict summaries, hint labels, hover markdown and diagnostic ranges.
#include "lsp/render.h"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace hone::lsp {

using nlohmann::json;

namespace {

std::optional<double> number_at(const json& j, const json::json_pointer& ptr) {
  if (!j.contains(ptr)) return std::nullopt;
  const json& v = j.at(ptr);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::string value_text(const json& v) {
  if (v.is_number()) return format_number(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return "null";
}

std::string bytes_text(double bytes) {
  if (bytes >= 1024.0 * 1024.0) return format_number(bytes / (1024.0 * 1024.0)) + " MiB";
  if (bytes >= 1024.0) return format_number(bytes / 1024.0) + " KiB";
  return format_number(bytes) + " B";
}

std::string mismatch_text(const json& verdict) {
  const auto pointer = "/correctness/trials"_json_pointer;
  if (!verdict.contains(pointer) || !verdict.at(pointer).is_array()) return {};
  for (const json& trial : verdict.at(pointer)) {
    if (!trial.is_object() || trial.value("passed", true) || !trial.contains("mismatch") || !trial["mismatch"].is_object()) continue;
    const json& m = trial["mismatch"];
    std::string where = "out";
    if (m.contains("output") && m["output"].is_number_integer() && m["output"].get<int>() > 0) {
      where += std::to_string(m["output"].get<int>());
    }
    if (m.contains("index") && m["index"].is_array()) {
      where += "[";
      for (std::size_t i = 0; i < m["index"].size(); ++i) where += (i ? "," : "") + m["index"][i].dump();
      where += "]";
    }
    std::string text = "mismatch at " + where;
    if (m.contains("got") && m.contains("expected")) {
      text += ": " + value_text(m["got"]) + " vs " + value_text(m["expected"]);
    }
    return text;
  }
  return {};
}

int count_errors(const json& verdict) {
  int n = 0;
  if (verdict.contains("compile") && verdict["compile"].contains("diagnostics")) {
    for (const json& d : verdict["compile"]["diagnostics"]) n += d.value("severity", "") == "error";
  }
  return n;
}

// Ends a range at the end of the identifier or token starting at `byte`, at least one character.
std::size_t token_end(std::string_view line, std::size_t byte) {
  if (byte >= line.size()) return line.size();
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t end = byte;
  if (word(line[byte])) {
    while (end < line.size() && word(line[end])) ++end;
  } else {
    ++end;
  }
  return end;
}

}  // namespace

std::string format_number(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  char buffer[32];
  double magnitude = std::fabs(value);
  if (magnitude >= 1000 || value == std::floor(value)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else if (magnitude >= 100) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else if (magnitude >= 10) {
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
  } else if (magnitude >= 0.01) {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.2e", value);
  }
  return buffer;
}

std::string verdict_summary(const json& verdict) {
  std::string status = verdict.value("status", "");
  std::string reason = verdict.value("reason", "");
  if (status == "correct") {
    std::string text = "✓ correct";
    if (auto p50 = number_at(verdict, "/timing/p50_us"_json_pointer)) text += " · " + format_number(*p50) + " µs";
    if (auto eager = number_at(verdict, "/speedup/eager"_json_pointer)) text += " · " + format_number(*eager) + "× eager";
    if (auto compiled = number_at(verdict, "/speedup/compile"_json_pointer)) {
      text += " · " + format_number(*compiled) + "× compile";
    }
    if (verdict.contains("flags") && !verdict["flags"].empty()) {
      text += " · ⚠ " + std::to_string(verdict["flags"].size()) + " flag" + (verdict["flags"].size() > 1 ? "s" : "");
    }
    return text;
  }
  if (status == "incorrect") {
    std::string mismatch = mismatch_text(verdict);
    return "✗ " + (mismatch.empty() ? (reason.empty() ? std::string("incorrect") : reason) : mismatch);
  }
  if (status == "compile_error") {
    int errors = count_errors(verdict);
    return "✗ compile error" + (errors > 0 ? ": " + std::to_string(errors) + " error" + (errors > 1 ? "s" : "") : "");
  }
  std::string label = status.empty() ? "no verdict" : status;
  for (char& c : label) c = c == '_' ? ' ' : c;
  return "✗ " + label + (reason.empty() ? "" : ": " + reason);
}

std::string kernel_hint_label(const json& k) {
  std::vector<std::string> parts;
  if (k.contains("registers") && k["registers"].is_number()) parts.push_back(std::to_string(k["registers"].get<int>()) + " regs");
  if (auto spills = number_at(k, "/spill_store_bytes"_json_pointer); spills && *spills > 0) {
    parts.push_back(bytes_text(*spills) + " spilled");
  }
  if (auto smem = number_at(k, "/static_shared_bytes"_json_pointer)) parts.push_back(bytes_text(*smem) + " smem");
  if (auto occ = number_at(k, "/occupancy/occupancy_pct"_json_pointer)) parts.push_back(format_number(*occ) + "% occ");
  std::string label;
  for (const auto& part : parts) label += (label.empty() ? "" : " · ") + part;
  return label;
}

std::string verdict_hover_markdown(const json& verdict) {
  std::string md = "**" + verdict_summary(verdict) + "**\n\n";
  auto timing_row = [&](const char* label, const json::json_pointer& ptr) {
    if (!verdict.contains(ptr) || !verdict.at(ptr).is_object()) return;
    const json& t = verdict.at(ptr);
    md += std::string("| ") + label + " | " + format_number(t.value("p10_us", 0.0)) + " | " + format_number(t.value("p50_us", 0.0)) +
          " | " + format_number(t.value("p90_us", 0.0)) + " | " + std::to_string(t.value("reps", 0)) + " |\n";
  };
  if (verdict.contains("timing")) {
    md += "| µs | p10 | p50 | p90 | reps |\n|---|---|---|---|---|\n";
    timing_row("kernel", "/timing"_json_pointer);
    timing_row("eager", "/baselines/eager"_json_pointer);
    timing_row("torch.compile", "/baselines/compile"_json_pointer);
    md += "\n";
  }
  if (verdict.contains("device")) {
    md += "device: " + verdict["device"].value("name", std::string("?"));
    if (verdict.contains("/timing/method"_json_pointer)) md += " · " + verdict.at("/timing/method"_json_pointer).get<std::string>();
    md += "\n\n";
  }
  if (verdict.contains("flags")) {
    for (const json& flag : verdict["flags"]) md += "- ⚠ " + flag.value("message", flag.value("id", std::string())) + "\n";
  }
  return md;
}

std::string kernel_hover_markdown(const json& k, const json& profile) {
  std::string name = k.value("name", "kernel");
  std::string md = "**" + name + "**";
  if (auto line = kernel_hint_label(k); !line.empty()) md += " — " + line;
  md += "\n\n";
  if (k.contains("occupancy") && k["occupancy"].is_object()) {
    const json& o = k["occupancy"];
    md += "- occupancy: " + (o.contains("occupancy_pct") ? format_number(o["occupancy_pct"].get<double>()) + "%" : std::string("?"));
    if (o.contains("block_size")) md += " at " + o["block_size"].dump() + " threads/block (" + o.value("block_size_source", "?") + ")";
    if (o.contains("limited_by")) md += ", limited by " + o["limited_by"].get<std::string>();
    md += "\n";
  }
  for (const char* key : {"spill_store_bytes", "spill_load_bytes", "stack_frame_bytes", "constant_bytes"}) {
    if (k.contains(key) && k[key].is_number() && k[key].get<double>() > 0) {
      md += std::string("- ") + key + ": " + k[key].dump() + "\n";
    }
  }
  if (!profile.is_object()) return md;
  const json candidate = profile.value("candidate", json::object());
  const json kernels = candidate.is_object() ? candidate.value("kernels", json::array()) : json::array();
  for (const json& pk : kernels) {
    std::string pname = pk.value("name", "");
    if (pname != name && pname.rfind(name + "(", 0) != 0 && pname.find(" " + name + "(") == std::string::npos &&
        pname.find("::" + name + "(") == std::string::npos) {
      continue;
    }
    md += "\n**Profile**: " + format_number(pk.value("duration_us", 0.0)) + " µs";
    if (pk.contains("grid") && pk.contains("block")) md += ", grid " + pk["grid"].dump() + " × block " + pk["block"].dump();
    md += "\n\n";
    const json derived = pk.value("derived", json::object());
    if (derived.is_object() && !derived.empty()) {
      md += "| counter | value |\n|---|---|\n";
      for (const auto& [key, value] : derived.items()) {
        if (value.is_number()) md += "| " + key + " | " + format_number(value.get<double>()) + " |\n";
      }
    }
    const json roofline = pk.value("roofline", json());
    if (roofline.is_object()) {
      md += "\n**Roofline**: " + roofline.value("bound", std::string("?")) + "-bound, " +
            format_number(roofline.value("pct_of_roofline", 0.0)) + "% of the roofline (memory " +
            format_number(roofline.value("memory_pct", 0.0)) + "%, compute " + format_number(roofline.value("compute_pct", 0.0)) +
            "%), " + format_number(roofline.value("arithmetic_intensity", 0.0)) + " FLOP/byte\n";
    }
    break;
  }
  const json counters = candidate.is_object() ? candidate.value("counters", json()) : json();
  if (counters.is_object() && !counters.value("available", true)) {
    md += "\ncounters unavailable: " + counters.value("message", std::string("not collected")) + "\n";
  }
  return md;
}

json to_lsp_diagnostic(const json& d, std::string_view text, PositionEncoding encoding) {
  int line = d.value("line", 0);
  int column = d.value("column", 0);
  int lsp_line = line > 0 ? line - 1 : 0;
  std::string_view content = line_text(text, lsp_line);
  Range range;
  range.start.line = range.end.line = lsp_line;
  if (line > 0 && column > 0 && static_cast<std::size_t>(column - 1) <= content.size()) {
    std::size_t byte = static_cast<std::size_t>(column - 1);
    range.start.character = column_in_encoding(content, byte, encoding);
    range.end.character = column_in_encoding(content, token_end(content, byte), encoding);
  } else {
    std::size_t indent = content.find_first_not_of(" \t");
    range.start.character = indent == std::string_view::npos ? 0 : column_in_encoding(content, indent, encoding);
    range.end.character = column_in_encoding(content, content.size(), encoding);
  }
  std::string sev = d.value("severity", "error");
  int severity = sev == "error" ? severity::kError : sev == "warning" ? severity::kWarning : severity::kInformation;
  std::string source = d.value("source", std::string("build"));
  json out = {{"range", range}, {"severity", severity}, {"source", source == "hone" ? source : "hone " + source},
              {"message", d.value("message", std::string())}};
  return out;
}

std::vector<json> verdict_diagnostics(const json& verdict, std::string_view text, int forward_line,
                                      PositionEncoding encoding) {
  std::vector<json> out;
  std::string_view content = line_text(text, forward_line);
  std::size_t at = content.find("forward");
  Range range;
  range.start.line = range.end.line = forward_line;
  range.start.character = at == std::string_view::npos ? 0 : column_in_encoding(content, at, encoding);
  range.end.character = at == std::string_view::npos ? column_in_encoding(content, content.size(), encoding)
                                                     : column_in_encoding(content, at + 7, encoding);
  auto add = [&](int severity, const std::string& message, const std::string& code) {
    out.push_back({{"range", range}, {"severity", severity}, {"source", "hone check"}, {"code", code}, {"message", message}});
  };
  std::string status = verdict.value("status", "");
  if (status != "correct" && status != "compile_error" && !status.empty()) {
    std::string message = verdict_summary(verdict).substr(std::string("✗ ").size());
    std::string reason = verdict.value("reason", "");
    if (!reason.empty() && message.find(reason) == std::string::npos) message += "\n" + reason;
    add(severity::kError, message, status);
  }
  if (verdict.contains("flags") && verdict["flags"].is_array()) {
    for (const json& flag : verdict["flags"]) add(severity::kWarning, flag.value("message", ""), flag.value("id", "flag"));
  }
  if (auto eager = number_at(verdict, "/speedup/eager"_json_pointer); status == "correct" && eager && *eager < 1.0) {
    add(severity::kInformation, "slower than PyTorch eager: " + format_number(*eager) + "× its speed", "slower_than_eager");
  }
  return out;
}

std::vector<json> suggestions_of(const json& result) {
  std::vector<json> out;
  if (!result.is_object()) return out;
  const json* list = nullptr;
  if (result.contains("/profile/suggestions"_json_pointer)) {
    list = &result.at("/profile/suggestions"_json_pointer);
  } else if (result.contains("suggestions")) {
    list = &result["suggestions"];
  }
  if (!list || !list->is_array()) return out;
  for (const json& s : *list) {
    if (s.is_object()) out.push_back(s);
  }
  return out;
}

std::optional<int> suggestion_line(const json& s) {
  if (s.contains("/location/line"_json_pointer) && s.at("/location/line"_json_pointer).is_number_integer()) {
    return s.at("/location/line"_json_pointer).get<int>();
  }
  if (s.contains("line") && s["line"].is_number_integer()) return s["line"].get<int>();
  return std::nullopt;
}

std::string suggestion_text(const json& s) {
  std::string text = s.value("title", s.value("message", std::string("suggestion")));
  if (s.contains("evidence") && s["evidence"].is_array()) {
    std::string parts;
    for (const json& e : s["evidence"]) {
      if (!e.is_object()) continue;
      std::string piece = e.value("metric", std::string("?")) + " = " + value_text(e.value("value", json()));
      std::string unit = e.value("unit", std::string());
      if (!unit.empty()) piece += " " + unit;
      std::string comparison = e.value("comparison", std::string());
      if (!comparison.empty() && e.contains("threshold")) piece += " " + comparison + " " + value_text(e["threshold"]);
      parts += (parts.empty() ? "" : ", ") + piece;
    }
    if (!parts.empty()) text += " (" + parts + ")";
  }
  if (s.contains("/gain/speedup"_json_pointer) && s.at("/gain/speedup"_json_pointer).is_number()) {
    text += " — est. up to " + format_number(s.at("/gain/speedup"_json_pointer).get<double>()) + "× faster";
  }
  return text;
}

}  // namespace hone::lsp
