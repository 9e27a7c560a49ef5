// profile/report_text.cpp: the profile report as readable text (hone profile's default output).
#include <algorithm>
#include <sstream>

#include "profile/report.h"
#include "profile/rules.h"

namespace hone::profile {
namespace {

std::string num(const nlohmann::json& j, const char* key, int digits, double scale = 1) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  return fixed(j[key].get<double>() * scale, digits);
}

std::string dims(const nlohmann::json& a) {
  if (!a.is_array() || a.size() != 3) return "-";
  return std::to_string(a[0].get<int>()) + "x" + std::to_string(a[1].get<int>()) + "x" + std::to_string(a[2].get<int>());
}

std::string shorten(std::string s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

void kernels(std::ostringstream& out, const nlohmann::json& side) {
  const nlohmann::json list = side.value("kernels", nlohmann::json::array());
  for (const nlohmann::json& k : list) {
    out << "  " << (k.value("own", false) ? "own " : "lib ") << shorten(k.value("name", std::string()), 44);
    out << std::string(std::max<std::size_t>(1, 46 - std::min<std::size_t>(44, k.value("name", std::string()).size())), ' ');
    out << num(k, "duration_us", 1) << " us  grid " << dims(k["grid"]) << "  block " << dims(k["block"]) << "  regs "
        << k.value("registers", 0) << "  smem " << k.value("shared_bytes", 0) << "\n";
    const nlohmann::json d = k.value("derived", nlohmann::json());
    if (!d.is_object()) continue;
    out << "      DRAM " << num(d, "dram_bytes", 1, 1e-6) << " MB";
    const nlohmann::json rl = k.value("roofline", nlohmann::json());
    if (rl.is_object()) out << " at " << num(rl, "achieved_bytes_per_s", 2, 1e-12) << " TB/s (" << num(rl, "memory_pct", 1) << "%)";
    out << "  FLOP";
    const nlohmann::json flops = d.value("flops", nlohmann::json::object());
    for (const auto& [p, v] : flops.items())
      if (v.get<double>() > 0) out << " " << p << "=" << fixed(v.get<double>(), 0);
    out << "  occupancy " << num(d, "achieved_occupancy_pct", 1) << "%  coalescing ld " << num(d, "global_load_efficiency_pct", 1)
        << "% st " << num(d, "global_store_efficiency_pct", 1) << "%\n";
  }
}

void roofline_line(std::ostringstream& out, const char* who, const nlohmann::json& p) {
  if (!p.is_object()) return;
  out << "  " << who << ": " << p.value("bound", std::string()) << "-bound, " << num(p, "pct_of_roofline", 1)
      << "% of roofline; DRAM " << num(p, "achieved_bytes_per_s", 2, 1e-12) << " TB/s (" << num(p, "memory_pct", 1)
      << "% of " << num(p, "peak_bytes_per_s", 2, 1e-12) << ", " << p.value("dram_source", std::string()) << ")";
  if (p.value("flops", 0.0) > 0)
    out << ", " << num(p, "achieved_flops_per_s", 2, 1e-12) << " TFLOP/s " << p.value("precision", nlohmann::json("")).get<std::string>()
        << " (" << num(p, "compute_pct", 1) << "%), AI " << num(p, "arithmetic_intensity", 2) << " FLOP/B";
  out << "\n";
}

}  // namespace

std::string render_profile_text(const nlohmann::json& profile) {
  std::ostringstream out;
  const nlohmann::json cand = profile.value("candidate", nlohmann::json::object());
  const nlohmann::json counters = cand.value("counters", nlohmann::json::object());
  out << "Profile on " << profile.value("device", nlohmann::json::object()).value("name", std::string("?"));
  if (counters.value("available", false))
    out << " (counters: " << counters.value("set", std::string()) << " set, " << counters.value("passes", 0) << " pass(es), "
        << counters.value("source", std::string()) << ", chip " << counters.value("chip", std::string()) << ")\n";
  else
    out << "\n  counters unavailable: " << counters.value("message", std::string("not collected")) << "\n";
  out << "Kernels of the candidate (own share " << num(cand, "own_share", 1, 100) << "%, own " << num(cand, "own_us", 1)
      << " us, library " << num(cand, "library_us", 1) << " us, copies " << num(cand, "copy_us", 1) << " us):\n";
  kernels(out, cand);
  if (cand.contains("match_note")) out << "  note: " << cand["match_note"].get<std::string>() << "\n";
  out << "Roofline:\n";
  roofline_line(out, "candidate", cand.value("roofline", nlohmann::json()));
  const nlohmann::json ref = profile.value("reference", nlohmann::json());
  if (ref.is_object()) roofline_line(out, "reference", ref.value("roofline", nlohmann::json()));
  const nlohmann::json suggestions = profile.value("suggestions", nlohmann::json::array());
  out << "Suggestions" << (suggestions.empty() ? ": none (no rule fired)\n" : ":\n");
  int i = 0;
  for (const nlohmann::json& s : suggestions) {
    out << "  " << ++i << ". " << s.value("title", std::string());
    const nlohmann::json gain = s.value("gain", nlohmann::json());
    if (gain.is_object()) out << " (est. up to " << num(gain, "speedup", 1) << "x)";
    out << "\n";
    const nlohmann::json loc = s.value("location", nlohmann::json());
    if (loc.is_object()) {
      out << "     at " << loc.value("file", std::string()) << ":" << loc.value("line", 0);
      const nlohmann::json lines = loc.value("lines", nlohmann::json::array());
      if (lines.size() > 1) {
        out << " (lines";
        for (const nlohmann::json& l : lines) out << " " << l.get<int>();
        out << ")";
      }
      out << " in " << s.value("kernel", nlohmann::json("")).get<std::string>() << "\n";
    }
    const nlohmann::json evidence = s.value("evidence", nlohmann::json::array());
    for (const nlohmann::json& e : evidence)
      out << "     evidence: " << e.value("metric", std::string()) << " = " << num(e, "value", 2) << " " << e.value("unit", std::string())
          << (e.value("comparison", std::string()).empty() ? "" : " " + e.value("comparison", std::string()) + " " + num(e, "threshold", 2)) << "\n";
    out << "     " << s.value("detail", std::string()) << "\n";
  }
  const nlohmann::json notes = profile.value("notes", nlohmann::json::array());
  for (const nlohmann::json& n : notes) out << "Note: " << n.get<std::string>() << "\n";
  const nlohmann::json overhead = profile.value("overhead", nlohmann::json::object());
  out << "Profiling overhead: traced call " << num(overhead, "activity_seconds", 3) << " s, counter replay "
      << num(overhead, "replay_seconds", 3) << " s\n";
  if (profile.contains("plot") && profile["plot"].is_string()) out << "Roofline plot: " << profile["plot"].get<std::string>() << "\n";
  return out.str();
}

}  // namespace hone::profile
