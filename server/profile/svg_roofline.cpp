// profile/svg_roofline.cpp: the SVG roofline writer (hand-laid-out SVG 1.1, no scripts).
#include "profile/svg_roofline.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "profile/rules.h"

namespace hone::profile {
namespace {

constexpr double kWidth = 720, kHeight = 480, kLeft = 80, kRight = 30, kTop = 50, kBottom = 90;

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string si(double v, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 6) {
    v /= 1000;
    ++i;
  }
  return format_fixed(v, v < 10 ? 2 : (v < 100 ? 1 : 0)) + " " + prefixes[i] + unit;
}

struct Axes {
  double x0, x1, y0, y1;  // log10 ranges
  double x(double ai) const { return kLeft + (std::log10(ai) - x0) / (x1 - x0) * (kWidth - kLeft - kRight); }
  double y(double flops) const { return kHeight - kBottom - (std::log10(flops) - y0) / (y1 - y0) * (kHeight - kTop - kBottom); }
};

Axes make_axes(const std::vector<PlotPoint>& points, const Ceilings& c, const std::set<Precision>& shown) {
  double max_flops = 1e12, min_ai = 1e-2, max_ai = 1e3;
  for (Precision p : shown)
    if (auto f = c.flops_for(p)) max_flops = std::max(max_flops, f->value);
  double min_flops = max_flops;
  for (const PlotPoint& pp : points)
    if (pp.point.arithmetic_intensity > 0 && pp.point.achieved_flops_per_s > 0) {
      min_ai = std::min(min_ai, pp.point.arithmetic_intensity / 2);
      max_ai = std::max(max_ai, pp.point.arithmetic_intensity * 2);
      min_flops = std::min(min_flops, pp.point.achieved_flops_per_s);
    }
  if (c.dram_bytes_per_s) min_flops = std::min(min_flops, min_ai * c.dram_bytes_per_s->value);
  return {std::floor(std::log10(min_ai)), std::ceil(std::log10(max_ai)), std::floor(std::log10(min_flops)) - 0.5,
          std::ceil(std::log10(max_flops * 1.5))};
}

void grid_and_labels(std::ostringstream& svg, const Axes& a) {
  for (int e = static_cast<int>(a.x0); e <= static_cast<int>(a.x1); ++e) {
    double x = a.x(std::pow(10.0, e));
    svg << "<line x1='" << x << "' y1='" << kTop << "' x2='" << x << "' y2='" << kHeight - kBottom
        << "' stroke='#ddd'/><text x='" << x << "' y='" << kHeight - kBottom + 16 << "' font-size='11' text-anchor='middle'>1e"
        << e << "</text>\n";
  }
  for (int e = static_cast<int>(std::ceil(a.y0)); e <= static_cast<int>(a.y1); ++e) {
    double y = a.y(std::pow(10.0, e));
    svg << "<line x1='" << kLeft << "' y1='" << y << "' x2='" << kWidth - kRight << "' y2='" << y
        << "' stroke='#ddd'/><text x='" << kLeft - 6 << "' y='" << y + 4 << "' font-size='11' text-anchor='end'>"
        << escape(si(std::pow(10.0, e), "FLOP/s")) << "</text>\n";
  }
  svg << "<text x='" << (kLeft + kWidth - kRight) / 2 << "' y='" << kHeight - kBottom + 34
      << "' font-size='12' text-anchor='middle'>arithmetic intensity (FLOP per DRAM byte)</text>\n";
}

void roofs(std::ostringstream& svg, const Axes& a, const Ceilings& c, const std::set<Precision>& shown) {
  if (!c.dram_bytes_per_s) return;
  double bw = c.dram_bytes_per_s->value;
  double ai_max = std::pow(10.0, a.x1), ai_min = std::pow(10.0, a.x0);
  int row = 0;
  for (Precision p : shown) {
    auto f = c.flops_for(p);
    if (!f) continue;
    double ridge = f->value / bw;
    svg << "<polyline fill='none' stroke='#1f5fa8' stroke-width='2' points='" << a.x(ai_min) << "," << a.y(ai_min * bw) << " "
        << a.x(std::min(ridge, ai_max)) << "," << a.y(std::min(ridge, ai_max) * bw) << " " << a.x(ai_max) << ","
        << a.y(std::min(f->value, ai_max * bw)) << "'/>\n";
    svg << "<text x='" << kWidth - kRight - 4 << "' y='" << a.y(f->value) - 5 - 12 * row
        << "' font-size='11' text-anchor='end' fill='#1f5fa8'>" << escape(std::string(precision_name(p))) << " "
        << escape(si(f->value, "FLOP/s")) << " (" << escape(f->source) << ")</text>\n";
    ++row;
  }
  svg << "<text x='" << a.x(ai_min) + 6 << "' y='" << a.y(ai_min * bw) - 8 << "' font-size='11' fill='#1f5fa8'>DRAM "
      << escape(si(bw, "B/s")) << " (" << escape(c.dram_bytes_per_s->source) << ")</text>\n";
}

}  // namespace

std::string roofline_svg(const std::vector<PlotPoint>& points, const Ceilings& ceilings, const std::string& title,
                         const std::vector<Precision>& also_show) {
  std::set<Precision> shown;
  for (const PlotPoint& pp : points)
    if (pp.point.precision) shown.insert(*pp.point.precision);
  for (Precision p : also_show)
    if (ceilings.flops_for(p)) shown.insert(p);
  if (shown.empty()) shown.insert(Precision::fp32);
  Axes a = make_axes(points, ceilings, shown);
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight << "' viewBox='0 0 "
      << kWidth << " " << kHeight << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
  svg << "<text x='" << kLeft << "' y='24' font-size='14' font-weight='bold'>" << escape(title) << "</text>\n";
  grid_and_labels(svg, a);
  roofs(svg, a, ceilings, shown);
  int caption = 0;
  for (const PlotPoint& pp : points) {
    const RooflinePoint& p = pp.point;
    std::string color = pp.baseline ? "#777" : "#c0392b";
    std::string summary = p.label + ": " + si(p.achieved_bytes_per_s, "B/s") + " DRAM (" + format_fixed(p.memory_pct, 1) + "%), " +
                          si(p.achieved_flops_per_s, "FLOP/s") + ", " + std::string(bound_name(p.bound)) + "-bound, " +
                          format_fixed(p.pct_of_roofline, 1) + "% of roofline";
    if (p.arithmetic_intensity > 0 && p.achieved_flops_per_s > 0) {
      double x = a.x(p.arithmetic_intensity), y = a.y(p.achieved_flops_per_s);
      svg << "<circle cx='" << x << "' cy='" << y << "' r='6' fill='" << (pp.baseline ? "white" : color) << "' stroke='"
          << color << "' stroke-width='2'><title>" << escape(summary) << "</title></circle>\n";
      svg << "<text x='" << x + 9 << "' y='" << y + 4 << "' font-size='11' fill='" << color << "'>" << escape(p.label) << "</text>\n";
    } else {
      summary += " (no FLOPs counted: not placed on the chart)";
    }
    svg << "<text x='" << kLeft << "' y='" << kHeight - kBottom + 54 + 14 * caption++ << "' font-size='11' fill='" << color
        << "'>" << escape(summary) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace hone::profile
