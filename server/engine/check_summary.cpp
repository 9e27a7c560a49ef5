// engine/check_summary.cpp: verdicts in words.
#include "engine/check_summary.h"

#include <cstdio>

#include "eval/plausibility.h"

namespace hone {
namespace {

using nlohmann::json;

std::string number(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.is_null() ? "nothing" : v.dump();
}

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x >= 100 ? "%.0f×" : x >= 1 ? "%.1f×" : "%.2g×", x);
  return buf;
}

std::string output_name(const protocol::Verdict& v, int index) {
  if (v.signature && index >= 0 && index < static_cast<int>(v.signature->outputs.size()))
    return v.signature->outputs[static_cast<std::size_t>(index)].name;
  return index == 0 ? "out" : "out" + std::to_string(index);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

std::string mismatch_text(const protocol::Verdict& v) {
  if (!v.correctness) return {};
  const auto& trials = v.correctness->trials;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const auto& t = trials[i];
    if (t.passed || !t.mismatch) continue;
    const auto& m = *t.mismatch;
    std::string where = output_name(v, m.output.value_or(0));
    if (!m.index.empty()) {
      where += "[";
      for (std::size_t k = 0; k < m.index.size(); ++k) where += (k ? "," : "") + std::to_string(m.index[k]);
      where += "]";
    }
    std::string text = where + " got " + number(m.got) + ", expected " + number(m.expected) + " (trial " +
                       std::to_string(i + 1) + ", seed " + std::to_string(t.seed) + ")";
    if (m.count && *m.count > 1) text += "; " + std::to_string(*m.count) + " elements out of tolerance";
    return text;
  }
  return {};
}

std::string verdict_headline(const protocol::Verdict& v) {
  if (v.status == protocol::Status::Correct) {
    std::string line = "✓ correct";
    if (v.timing) line += " · " + eval::format_us(v.timing->p50_us);
    if (v.speedup && v.speedup->eager) line += " · " + ratio(*v.speedup->eager) + " eager";
    if (v.speedup && v.speedup->compile) line += " · " + ratio(*v.speedup->compile) + " compile";
    if (!v.flags.empty()) line += " · " + std::to_string(v.flags.size()) + (v.flags.size() == 1 ? " flag" : " flags");
    return line;
  }
  std::string line = "✗ " + std::string(protocol::to_string(v.status));
  std::string mismatch = v.status == protocol::Status::Incorrect ? mismatch_text(v) : std::string();
  if (!mismatch.empty()) return line + ": " + mismatch;
  if (v.reason) return line + ": " + first_line(*v.reason);
  return line;
}

std::string timing_text(const protocol::Timing& t) {
  return "p50 " + eval::format_us(t.p50_us) + " (p10 " + eval::format_us(t.p10_us) + ", p90 " + eval::format_us(t.p90_us) +
         ", " + std::to_string(t.reps) + " reps, " + t.method + ")";
}

std::string signature_text(const protocol::Signature& s) {
  std::string text;
  if (!s.raw.empty()) text += "  raw form:   " + s.raw + "\n";
  if (!s.torch.empty()) text += "  torch form: " + s.torch + "\n";
  return text;
}

std::string verdict_details(const protocol::Verdict& v) {
  std::string out;
  const bool correct = v.status == protocol::Status::Correct;
  if (!correct && v.reason && (v.reason->find('\n') != std::string::npos || !mismatch_text(v).empty()))
    out += "  " + *v.reason + "\n";
  if (v.status == protocol::Status::CompileError) {
    for (const auto& d : v.compile.diagnostics) {
      if (d.severity != protocol::Severity::Error || (v.reason && d.message == *v.reason)) continue;
      std::string where = d.file;
      if (d.line > 0) where += ":" + std::to_string(d.line);
      if (d.line > 0 && d.column > 0) where += ":" + std::to_string(d.column);
      out += "  " + where + ": error: " + d.message + "\n";
    }
    if (v.signature && v.reason && v.reason->find("does not fit the task") != std::string::npos)
      out += "  expected forward:\n" + signature_text(*v.signature);
  }
  if (v.evidence) {
    const auto& e = *v.evidence;
    if (e.cuda_error) out += "  CUDA error: " + *e.cuda_error + "\n";
    if (!e.stderr_tail.empty()) {
      out += "  last stderr lines:\n";
      std::size_t from = e.stderr_tail.size() > 8 ? e.stderr_tail.size() - 8 : 0;
      for (std::size_t i = from; i < e.stderr_tail.size(); ++i) out += "    " + e.stderr_tail[i] + "\n";
    }
  }
  if (correct && v.timing) out += "  timing: " + timing_text(*v.timing) + "\n";
  if (v.baselines) {
    if (v.baselines->eager) out += "  reference eager: " + eval::format_us(v.baselines->eager->p50_us) + "\n";
    if (v.baselines->compile_measured && v.baselines->compile)
      out += "  reference torch.compile: " + eval::format_us(v.baselines->compile->p50_us) + "\n";
  }
  if (v.floor && v.floor->floor_us > 0)
    out += "  physical floor: " + eval::format_us(v.floor->floor_us) + " (" + eval::format_bytes(v.floor->bytes) +
           " at " + eval::format_rate(v.floor->peak_dram_bytes_per_s) + ")\n";
  for (const auto& f : v.flags) out += "  ⚑ " + f.id + ": " + f.message + "\n";
  return out;
}

}  // namespace hone
