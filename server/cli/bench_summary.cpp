// cli/bench_summary.cpp: fast_p, geometric means, the table, the JSON and the SVG of `hone bench`.
#include "cli/bench_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "protocol/verdict_text.h"

namespace hone::cli {
namespace {

using protocol::format_fixed;

std::optional<double> speedup_of(const BenchRow& r, bool compile) {
  return compile ? r.speedup_compile : r.speedup_eager;
}

const std::optional<protocol::SpeedupRange>& range_of(const BenchRow& r, bool compile) {
  return compile ? r.speedup_compile_range : r.speedup_eager_range;
}

nlohmann::json range_json(const std::optional<protocol::SpeedupRange>& r) {
  return r ? nlohmann::json{{"low", r->low}, {"high", r->high}} : nlohmann::json(nullptr);
}

std::string threshold_key(double t) {
  std::string s = format_fixed(t, 2);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

double fast_p(const std::vector<BenchRow>& rows, double threshold, bool compile) {
  if (rows.empty()) return 0;
  std::size_t n = 0;
  for (const auto& r : rows) {
    if (r.status != "correct") continue;
    auto s = speedup_of(r, compile);
    const auto& range = range_of(r, compile);
    if (threshold <= 0 || (s && *s > threshold) || (!s && range && range->low > threshold)) ++n;
  }
  return static_cast<double>(n) / static_cast<double>(rows.size());
}

std::optional<double> geomean_speedup(const std::vector<BenchRow>& rows, bool compile) {
  double log_sum = 0;
  std::size_t n = 0;
  for (const auto& r : rows) {
    auto s = speedup_of(r, compile);
    if (r.status != "correct" || !s || *s <= 0) continue;
    log_sum += std::log(*s);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / static_cast<double>(n));
}

const std::vector<double>& bench_thresholds() {
  static const std::vector<double> t{0, 0.5, 0.8, 1, 1.5, 2, 3, 5};
  return t;
}

std::string bench_text(const std::vector<BenchRow>& rows) {
  std::size_t width = 4;
  for (const auto& r : rows) width = std::max(width, r.task.size());
  width = std::min<std::size_t>(width, 48);
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-14s %11s %8s %8s  %s\n", static_cast<int>(width), "task", "status", "p50",
                "eager", "compile", "reason / flags");
  out << line;
  for (const auto& r : rows) {
    std::string task = r.task.size() > width ? "…" + r.task.substr(r.task.size() - width + 1) : r.task;
    std::string p50 = r.p50_us ? format_fixed(*r.p50_us, 1) + " µs" : "-";
    auto shown = [](const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range) {
      if (point) return format_fixed(*point, 2) + "×";
      return range ? protocol::format_speedup(point, range) : std::string("-");
    };
    std::string eager = shown(r.speedup_eager, r.speedup_eager_range);
    std::string comp = shown(r.speedup_compile, r.speedup_compile_range);
    std::string note = r.reason;
    if (note.size() > 90) note = note.substr(0, 89) + "…";
    for (const auto& f : r.flags) note += (note.empty() ? "⚑ " : " ⚑ ") + f;
    std::snprintf(line, sizeof line, "%-*s  %-14s %11s %9s %9s  %s\n", static_cast<int>(width), task.c_str(),
                  r.status.c_str(), p50.c_str(), eager.c_str(), comp.c_str(), note.c_str());
    out << line;
  }
  std::size_t correct = 0;
  for (const auto& r : rows) correct += r.status == "correct";
  out << "\n" << correct << " of " << rows.size() << " correct";
  for (bool compile : {false, true}) {
    auto g = geomean_speedup(rows, compile);
    if (g) out << " · geomean " << format_fixed(*g, 2) << "× " << (compile ? "torch.compile" : "eager") << " (correct only)";
  }
  out << "\n";
  for (bool compile : {false, true}) {
    bool any = std::any_of(rows.begin(), rows.end(),
                           [&](const BenchRow& r) { return speedup_of(r, compile).has_value() || range_of(r, compile); });
    out << "fast_p vs " << (compile ? "torch.compile" : "eager") << ":";
    if (!any) {
      out << " no baseline timings (torch.compile needs torch 2; --baselines may have left them out)\n";
      continue;
    }
    for (double t : bench_thresholds()) out << "  fast_" << threshold_key(t) << " " << format_fixed(100 * fast_p(rows, t, compile), 0) << "%";
    const auto ranged = std::count_if(rows.begin(), rows.end(), [&](const BenchRow& r) {
      return r.status == "correct" && !speedup_of(r, compile) && range_of(r, compile);
    });
    if (ranged > 0)
      out << "  (" << ranged << " correct row" << (ranged == 1 ? "" : "s") << " timed noisily: a range, counted only where "
          << "its low end clears the threshold)";
    out << "\n";
  }
  return out.str();
}

nlohmann::json bench_json(const std::vector<BenchRow>& rows) {
  using nlohmann::json;
  json tasks = json::array();
  std::map<std::string, int> by_status;
  for (const auto& r : rows) {
    json j{{"task", r.task}, {"kernel", r.kernel.empty() ? json(nullptr) : json(r.kernel)}, {"status", r.status}};
    if (!r.reason.empty()) j["reason"] = r.reason;
    j["p50_us"] = r.p50_us ? json(*r.p50_us) : json(nullptr);
    j["speedup"] = {{"eager", r.speedup_eager ? json(*r.speedup_eager) : json(nullptr)},
                    {"compile", r.speedup_compile ? json(*r.speedup_compile) : json(nullptr)}};
    if (r.speedup_eager_range) j["speedup"]["eager_range"] = range_json(r.speedup_eager_range);
    if (r.speedup_compile_range) j["speedup"]["compile_range"] = range_json(r.speedup_compile_range);
    j["flags"] = r.flags;
    tasks.push_back(std::move(j));
    ++by_status[r.status];
  }
  json summary{{"tasks", rows.size()}, {"correct", by_status["correct"]}, {"by_status", by_status}};
  for (bool compile : {false, true}) {
    const char* key = compile ? "compile" : "eager";
    for (double t : bench_thresholds()) summary["fast_p"][key][threshold_key(t)] = fast_p(rows, t, compile);
    auto g = geomean_speedup(rows, compile);
    summary["geomean_speedup"][key] = g ? json(*g) : json(nullptr);
  }
  return json{{"tasks", tasks}, {"summary", summary}};
}

std::string bench_svg(const std::vector<BenchRow>& rows, const std::string& title) {
  const double W = 640, H = 400, left = 60, right = 20, top = 40, bottom = 50;
  const double pw = W - left - right, ph = H - top - bottom;
  auto x_of = [&](double t) { return left + pw * (std::log10(t) + 1) / 2; };  // 0.1 .. 10, log scale
  auto y_of = [&](double f) { return top + ph * (1 - f); };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">" << xml_escape(title) << "</text>\n";
  for (double t : {0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0}) {
    s << "<line x1=\"" << x_of(t) << "\" y1=\"" << top << "\" x2=\"" << x_of(t) << "\" y2=\"" << top + ph
      << "\" stroke=\"#ddd\"/><text x=\"" << x_of(t) << "\" y=\"" << top + ph + 16 << "\" text-anchor=\"middle\">"
      << threshold_key(t) << "×</text>\n";
  }
  for (int pct = 0; pct <= 100; pct += 25) {
    double y = y_of(pct / 100.0);
    s << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + pw << "\" y2=\"" << y
      << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << pct << "%</text>\n";
  }
  s << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 10 << "\" text-anchor=\"middle\">speedup threshold p (log scale)</text>\n";
  s << "<text transform=\"translate(16," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">fast_p (share of all tasks)</text>\n";
  struct Curve { bool compile; const char* color; const char* label; };
  int legend = 0;
  for (Curve c : {Curve{false, "#1f77b4", "vs eager"}, Curve{true, "#d62728", "vs torch.compile"}}) {
    s << "<polyline fill=\"none\" stroke=\"" << c.color << "\" stroke-width=\"2\" points=\"";
    for (int i = 0; i <= 200; ++i) {
      double t = std::pow(10.0, -1 + 2.0 * i / 200);
      s << x_of(t) << "," << y_of(fast_p(rows, t, c.compile)) << " ";
    }
    s << "\"/>\n<text x=\"" << left + pw - 130 << "\" y=\"" << top + 16 + 16 * legend++ << "\" fill=\"" << c.color << "\">"
      << c.label << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace hone::cli
