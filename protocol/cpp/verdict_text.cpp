// protocol/verdict_text.cpp: numbers and units, verdict headlines and details, hover markdown.
#include "protocol/verdict_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace hone::protocol {
namespace {

using nlohmann::json;

std::string printf_string(const char* format, double value, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value, unit);
  return buf;
}

// Three significant digits with a unit from `units` (each 1000x the previous).
std::string scaled(double value, const char* const* units, int count) {
  int i = 0;
  while (i + 1 < count && value >= 1000.0) {
    value /= 1000.0;
    ++i;
  }
  const char* format = value >= 100 ? "%.0f %s" : value >= 10 ? "%.1f %s" : "%.2f %s";
  return printf_string(format, value, units[i]);
}

// A mismatch's value as the worker sent it: a number, a string ("nan") or null.
std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.is_null() ? "nothing" : v.dump();
}

std::string output_name(const Verdict& v, int index) {
  if (v.signature && index >= 0 && index < static_cast<int>(v.signature->outputs.size()))
    return v.signature->outputs[static_cast<std::size_t>(index)].name;
  return index == 0 ? "out" : "out" + std::to_string(index);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string plural(std::size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string location(const Diagnostic& d) {
  std::string where = d.file;
  if (d.line > 0) where += ":" + std::to_string(d.line);
  if (d.line > 0 && d.column > 0) where += ":" + std::to_string(d.column);
  return where;
}

std::string failure_details(const Verdict& v) {
  std::string out;
  if (v.reason && (v.reason->find('\n') != std::string::npos || !mismatch_text(v).empty())) out += "  " + *v.reason + "\n";
  if (v.status == Status::CompileError) {
    for (const auto& d : v.compile.diagnostics) {
      if (d.severity != Severity::Error || (v.reason && d.message == *v.reason)) continue;
      out += "  " + location(d) + ": error: " + d.message + "\n";
    }
    if (v.signature && v.reason && v.reason->find("does not fit the task") != std::string::npos) {
      for (const auto& d : v.compile.diagnostics)  // the engine places it at the kernel's forward
        if (d.line > 0 && d.message == *v.reason) out += "  " + location(d) + ": the forward that does not fit\n";
      out += "  expected forward:\n" + signature_text(*v.signature);
    }
  }
  return out;
}

std::string evidence_details(const Evidence& e) {
  std::string out;
  if (e.cuda_error) out += "  CUDA error: " + *e.cuda_error + "\n";
  if (!e.stderr_tail.empty()) {
    out += "  last stderr lines:\n";
    std::size_t from = e.stderr_tail.size() > 8 ? e.stderr_tail.size() - 8 : 0;
    for (std::size_t i = from; i < e.stderr_tail.size(); ++i) out += "    " + e.stderr_tail[i] + "\n";
  }
  return out;
}

// "1.7× eager, 1.1× torch.compile" for one basis; "" when neither is known.
std::string speedup_pair(const std::optional<double>& eager, const std::optional<SpeedupRange>& eager_range,
                         const std::optional<double>& compile, const std::optional<SpeedupRange>& compile_range) {
  std::string out;
  if (auto e = format_speedup(eager, eager_range); !e.empty()) out += e + " eager";
  if (auto c = format_speedup(compile, compile_range); !c.empty()) out += (out.empty() ? "" : ", ") + c + " torch.compile";
  return out;
}

std::string summary_text(const TimeSummary& t) {
  std::string out = "p50 " + format_us(t.p50_us) + " (p10 " + format_us(t.p10_us) + ", p90 " + format_us(t.p90_us);
  if (t.reps > 0 && t.calls_per_sample.value_or(1) > 1) {
    out += ", " + std::to_string(t.reps) + " samples of " + std::to_string(*t.calls_per_sample) + " calls";
  } else if (t.reps > 0) {
    out += ", " + std::to_string(t.reps) + " reps";
  }
  if (!t.method.empty()) out += ", " + t.method;
  if (auto width = t.p50_interval()) {
    char half[32];
    std::snprintf(half, sizeof half, "%.2g", 50 * *width);
    out += std::string("; p50 known to ±") + half + "% (95%)";
  }
  out += ")";
  if (t.spread() > kNoisySpread) out += " · noisy (spread " + format_number(100 * t.spread()) + "%)";
  return out;
}

// A baseline's times: "device 8.02 µs, call 9.31 µs", or its one time.
std::string baseline_times(const Timing& t) {
  std::string out = t.device ? "device " + format_us(t.device->p50_us) + ", call " + format_us(call_time(t).p50_us)
                             : format_us(t.p50_us);
  if (basis_time(t).spread() > kNoisySpread) out += " (noisy: p10 " + format_us(basis_time(t).p10_us) + ", p90 " +
                                                   format_us(basis_time(t).p90_us) + ")";
  return out;
}

// A kernel's name as a person scans it: "void ns::name<args>(params)" -> "ns::name<args>", at most 48
// characters (a cut one ends in "…").
std::string brief_kernel_name(std::string name) {
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  int depth = 0;
  std::size_t end = 0;
  for (; end < name.size(); ++end) {
    const char c = name[end];
    if (c == '<') ++depth;
    else if (c == '>' && depth > 0) --depth;
    else if (c == '(' && depth == 0) break;
  }
  name.resize(end);
  if (name.empty()) return "?";
  return name.size() > 48 ? name.substr(0, 47) + "…" : name;
}

}  // namespace

std::string format_speedup(const std::optional<double>& point, const std::optional<SpeedupRange>& range) {
  if (point) return format_speedup(*point);
  if (!range) return {};
  std::string low = format_speedup(range->low);
  return low.substr(0, low.size() - std::string("×").size()) + "–" + format_speedup(range->high);
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : (value < 0 ? "-inf" : "nan");
  char buf[64];
  if (std::fabs(value) >= 100 || value == std::floor(value))
    std::snprintf(buf, sizeof buf, "%.0f", value);
  else
    std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

std::string format_fixed(double value, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

std::string format_speedup(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ratio >= 100 ? "%.0f×" : ratio >= 1 ? "%.1f×" : "%.2g×", ratio);
  return buf;
}

std::string format_us(double us) {
  static const char* const units[] = {"µs", "ms", "s"};
  if (us < 1.0) return printf_string("%.3f %s", us, "µs");
  return scaled(us, units, 3);
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
  if (bytes < 1000) return printf_string("%.0f %s", bytes, "B");
  return scaled(bytes, units, 5);
}

std::string format_rate(double bytes_per_s) {
  static const char* const units[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  return scaled(bytes_per_s, units, 5);
}

std::string short_reason(const std::string& reason, std::size_t max_chars) {
  std::string s = first_line(reason);
  if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
  return s;
}

std::string status_words(Status status) {
  std::string words(to_string(status));
  for (char& c : words) c = c == '_' ? ' ' : c;
  return words;
}

std::string mismatch_text(const Verdict& v) {
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
    const std::string kind = m.kind.value_or("tolerance");
    const std::string trial = " (trial " + std::to_string(i + 1) + ", seed " + std::to_string(t.seed) + ")";
    if (kind == "unwritten") {  // its value is hone's poison: no got/expected worth showing
      std::string text = where + " was never written" + trial;
      if (m.count && *m.count > 1) text += "; " + std::to_string(*m.count) + " elements never written";
      return text;
    }
    std::string text = where + " got " + value_text(m.got) + ", expected " + value_text(m.expected) + trial;
    if (m.count && *m.count > 1)
      text += "; " + std::to_string(*m.count) +
              (kind == "nonfinite" ? " elements NaN or Inf where the reference is finite" : " elements out of tolerance");
    if (kind == "tolerance" && t.max_abs_error) text += "; max abs error " + format_number(*t.max_abs_error);
    return text;
  }
  return {};
}

std::string verdict_headline(const Verdict& v) {
  if (v.status == Status::Correct) {
    std::string line = "✓ correct";
    if (v.timing) line += " · " + format_us(basis_time(*v.timing).p50_us) + (v.timing->device ? " device" : "");
    const bool withheld = std::any_of(v.flags.begin(), v.flags.end(), [](const Flag& f) { return f.id == "timing_withheld"; });
    if (!v.timing && withheld) line += " · no time (machine busy)";
    if (v.speedup) {
      const std::string e = format_speedup(v.speedup->eager, v.speedup->eager_range);
      const std::string c = format_speedup(v.speedup->compile, v.speedup->compile_range);
      if (!e.empty()) line += " · " + e + " eager";
      if (!c.empty()) line += " · " + c + " compile";
      if (v.speedup->eager_range || v.speedup->compile_range) line += " (noisy: a range)";
    }
    if (!v.flags.empty()) line += " · ⚠ " + plural(v.flags.size(), "flag");
    return line;
  }
  std::string detail = v.status == Status::Incorrect ? mismatch_text(v) : std::string();
  if (detail.empty() && v.reason) detail = first_line(*v.reason);
  const std::size_t errors = v.compile.count(Severity::Error);
  if (v.status == Status::CompileError && errors > 1 && !detail.empty())
    detail += " (+" + plural(errors - 1, "more error") + ")";
  return "✗ " + status_words(v.status) + (detail.empty() ? "" : ": " + detail);
}

std::string timing_text(const Timing& t) {
  if (t.device) return "device time " + summary_text(*t.device) + "; call time " + summary_text(call_time(t));
  return "p50 " + format_us(t.p50_us) + " (p10 " + format_us(t.p10_us) + ", p90 " + format_us(t.p90_us) + ", " +
         std::to_string(t.reps) + " reps, " + t.method + ")";
}

std::string signature_text(const Signature& s) {
  std::string text;
  if (!s.raw.empty()) text += "  raw form:   " + s.raw + "\n";
  if (!s.torch.empty()) text += "  torch form: " + s.torch + "\n";
  return text;
}

std::string device_kernels_text(const Timing& t) {
  if (t.device_kernels.size() < 2) return {};
  std::string out;
  for (const auto& k : t.device_kernels)
    out += (out.empty() ? "" : " · ") + brief_kernel_name(k.name) + " " + format_us(k.p50_us);
  return out;
}

std::string verdict_details(const Verdict& v) {
  std::string out;
  const bool correct = v.status == Status::Correct;
  if (!correct) out += failure_details(v);
  if (v.evidence) out += evidence_details(*v.evidence);
  if (correct && v.timing) {
    if (v.timing->device) {
      out += "  device time: " + summary_text(*v.timing->device) + "\n";
      out += "  call time:   " + summary_text(call_time(*v.timing)) + "\n";
      if (auto by_kernel = device_kernels_text(*v.timing); !by_kernel.empty()) out += "  by kernel:   " + by_kernel + "\n";
    } else {
      out += "  timing: " + timing_text(*v.timing) + "\n";
    }
    if (v.timing->settle_ms) out += "  clocks settled in " + format_number(*v.timing->settle_ms) + " ms\n";
    if (v.timing->kernel_counters_note) {
      // Counted, but not as asked (each call flushed once instead of before each kernel), or not counted.
      const bool counted = v.timing->device && v.timing->device->method == "cupti_gpu_time_duration";
      out += std::string(counted ? "  device time counted, but " : "  device time not from kernel counters: ") +
             *v.timing->kernel_counters_note + "\n";
    }
  }
  if (v.answer) {
    out += "  KernelBench answer";
    if (!v.answer->extensions.empty()) {
      out += " (built by hone: ";
      for (std::size_t i = 0; i < v.answer->extensions.size(); ++i) out += (i ? ", " : "") + v.answer->extensions[i];
      out += ")";
    }
    if (v.answer->triton) out += " (Triton)";
    out += v.answer->initialised.empty() ? std::string("\n") : ": " + v.answer->initialised + "\n";
    if (!v.answer->parameters.empty())
      out += "  parameters: " + (v.answer->parameters == "match" ? std::string("ModelNew's equal Model's") : v.answer->parameters) + "\n";
  }
  if (v.baselines) {
    if (v.baselines->eager) out += "  reference eager: " + baseline_times(*v.baselines->eager) + "\n";
    if (v.baselines->compile_measured && v.baselines->compile)
      out += "  reference torch.compile: " + baseline_times(*v.baselines->compile) + "\n";
  }
  if (correct && v.speedup) {
    const Speedup& s = *v.speedup;
    const std::string basis = s.basis.empty() ? "" : " (" + s.basis + " time)";
    const std::string main = speedup_pair(s.eager, s.eager_range, s.compile, s.compile_range);
    if (!main.empty()) out += "  speedup" + basis + ": " + main + "\n";
    const std::string by_call = speedup_pair(s.call_eager, s.call_eager_range, s.call_compile, s.call_compile_range);
    if (s.by_call && !by_call.empty() && v.device.kind != "cpu") out += "  speedup (call time): " + by_call + "\n";
    if (s.eager_range || s.compile_range || s.call_eager_range || s.call_compile_range)
      out += "  a speedup shown as low–high is a range: a timing was noisy (p10..p90 over " +
             format_number(100 * kNoisySpread) + "% of its median), so no single number is claimed\n";
  }
  if (v.floor && v.floor->floor_us > 0)
    out += "  physical floor: " + format_us(v.floor->floor_us) + " (" + format_bytes(v.floor->bytes) + " at " +
           format_rate(v.floor->peak_dram_bytes_per_s) + ")\n";
  for (const auto& f : v.flags) out += "  ⚑ " + f.id + ": " + f.message + "\n";
  return out;
}

std::string profile_headline(const Verdict& v, const std::string& skipped) {
  std::string line = verdict_headline(v);
  if (v.profile && !v.profile->suggestions.empty()) line += " · " + plural(v.profile->suggestions.size(), "suggestion");
  if (!skipped.empty()) line += " · " + skipped;
  return line;
}

std::string verdict_hover_markdown(const Verdict& v) {
  std::string md = "**" + verdict_headline(v) + "**\n\n";
  auto summary_row = [&](const std::string& label, const TimeSummary& t) {
    md += "| " + label + " | " + format_number(t.p10_us) + " | " + format_number(t.p50_us) + " | " +
          format_number(t.p90_us) + " | " + std::to_string(t.reps) + " |\n";
  };
  auto timing_row = [&](const char* label, const std::optional<Timing>& t) {
    if (!t) return;
    if (t->device) {
      summary_row(std::string(label) + " device", *t->device);
      summary_row(std::string(label) + " call", call_time(*t));
      return;
    }
    summary_row(label, call_time(*t));
  };
  if (v.timing) {
    md += "| µs | p10 | p50 | p90 | reps |\n|---|---|---|---|---|\n";
    timing_row("kernel", v.timing);
    if (v.baselines) {
      timing_row("eager", v.baselines->eager);
      timing_row("torch.compile", v.baselines->compile);
    }
    md += "\n";
  }
  md += "device: " + (v.device.name.empty() ? std::string("?") : v.device.name);
  if (v.timing) md += " · " + v.timing->method;
  if (v.speedup && !v.speedup->basis.empty()) md += " · speedups by " + v.speedup->basis + " time";
  md += "\n\n";
  if (v.speedup && (v.speedup->eager_range || v.speedup->compile_range))
    md += "Speedup shown as a range: a timing was noisy, so no single number is claimed.\n\n";
  for (const Flag& flag : v.flags) md += "- ⚠ " + (flag.message.empty() ? flag.id : flag.message) + "\n";
  return md;
}

}  // namespace hone::protocol
