// profile/report_text.cpp: the profile report as readable text (hone profile's default output).
#include <algorithm>
#include <sstream>

#include "profile/report.h"
#include "profile/rules.h"

namespace hone::profile {
namespace {

using protocol::CallProfile;
using protocol::ProfiledKernel;

std::string num(const std::optional<double>& v, int digits, double scale = 1) { return v ? fixed(*v * scale, digits) : "-"; }

std::string dims(const std::array<int, 3>& a) {
  return std::to_string(a[0]) + "x" + std::to_string(a[1]) + "x" + std::to_string(a[2]);
}

std::string shorten(std::string s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

// The FLOPs by precision name, as the report's JSON orders them.
std::vector<std::pair<std::string, double>> flops_by_name(const std::map<Precision, double>& flops) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [p, v] : flops) out.emplace_back(std::string(precision_name(p)), v);
  std::sort(out.begin(), out.end());
  return out;
}

void kernel_lines(std::ostringstream& out, const ProfiledKernel& k) {
  const auto& r = k.record;
  out << "  " << (r.own ? "own " : "lib ") << shorten(r.name, 44);
  out << std::string(std::max<std::size_t>(1, 46 - std::min<std::size_t>(44, r.name.size())), ' ');
  out << fixed(r.duration_us, 1) << " us  grid " << dims(r.grid) << "  block " << dims(r.block) << "  regs "
      << r.registers_per_thread << "  smem " << r.static_shared_bytes + r.dynamic_shared_bytes << "\n";
  if (k.metrics.empty()) return;
  const auto& d = k.derived;
  out << "      DRAM " << num(d.dram_bytes(), 1, 1e-6) << " MB";
  if (k.roofline)
    out << " at " << fixed(k.roofline->achieved_bytes_per_s * 1e-12, 2) << " TB/s (" << fixed(k.roofline->memory_pct, 1) << "%)";
  out << "  FLOP";
  for (const auto& [p, v] : flops_by_name(d.flops))
    if (v > 0) out << " " << p << "=" << fixed(v, 0);
  out << "  occupancy " << num(d.achieved_occupancy_pct, 1) << "%  coalescing ld " << num(d.global_load_efficiency_pct, 1)
      << "% st " << num(d.global_store_efficiency_pct, 1) << "%\n";
}

void roofline_line(std::ostringstream& out, const char* who, const std::optional<RooflinePoint>& p) {
  if (!p) return;
  out << "  " << who << ": " << bound_name(p->bound) << "-bound, " << fixed(p->pct_of_roofline, 1) << "% of roofline; DRAM "
      << fixed(p->achieved_bytes_per_s * 1e-12, 2) << " TB/s (" << fixed(p->memory_pct, 1) << "% of "
      << fixed(p->peak_bytes_per_s * 1e-12, 2) << ", " << p->dram_source << ")";
  if (p->flops > 0)
    out << ", " << fixed(p->achieved_flops_per_s * 1e-12, 2) << " TFLOP/s "
        << (p->precision ? precision_name(*p->precision) : std::string_view()) << " (" << fixed(p->compute_pct, 1)
        << "%), AI " << fixed(p->arithmetic_intensity, 2) << " FLOP/B";
  out << "\n";
}

void suggestion_lines(std::ostringstream& out, int number, const Suggestion& s) {
  out << "  " << number << ". " << s.title;
  if (s.gain) out << " (est. up to " << fixed(s.gain->speedup, 1) << "x)";
  out << "\n";
  if (s.location) {
    out << "     at " << s.location->file << ":" << s.location->line;
    if (s.location->lines.size() > 1) {
      out << " (lines";
      for (int l : s.location->lines) out << " " << l;
      out << ")";
    }
    out << " in " << s.kernel << "\n";
  }
  for (const Evidence& e : s.evidence)
    out << "     evidence: " << e.metric << " = " << fixed(e.value, 2) << " " << e.unit
        << (e.comparison.empty() ? "" : " " + e.comparison + " " + fixed(e.threshold, 2)) << "\n";
  out << "     " << s.detail << "\n";
}

}  // namespace

std::string render_profile_text(const protocol::ProfileReport& profile) {
  std::ostringstream out;
  const CallProfile& cand = profile.candidate;
  const protocol::CountersStatus& counters = cand.counters;
  out << "Profile on " << profile.device.name;
  if (counters.available)
    out << " (counters: " << counters.set << " set, " << counters.passes << " pass(es), " << counters.source << ", chip "
        << counters.chip << ")\n";
  else
    out << "\n  counters unavailable: " << counters.message << "\n";
  out << "Kernels of the candidate (own share " << fixed(cand.own_share * 100, 1) << "%, own " << fixed(cand.own_us, 1)
      << " us, library " << fixed(cand.library_us, 1) << " us, copies " << fixed(cand.copy_us, 1) << " us):\n";
  for (const ProfiledKernel& k : cand.kernels) kernel_lines(out, k);
  if (!cand.match_note.empty()) out << "  note: " << cand.match_note << "\n";
  out << "Roofline:\n";
  roofline_line(out, "candidate", cand.roofline);
  if (profile.reference) roofline_line(out, "reference", profile.reference->roofline);
  out << "Suggestions" << (profile.suggestions.empty() ? ": none (no rule fired)\n" : ":\n");
  int i = 0;
  for (const Suggestion& s : profile.suggestions) suggestion_lines(out, ++i, s);
  for (const std::string& n : profile.notes) out << "Note: " << n << "\n";
  out << "Profiling overhead: traced call " << fixed(profile.overhead.activity_seconds, 3) << " s, counter replay "
      << fixed(profile.overhead.replay_seconds, 3) << " s\n";
  if (profile.plot) out << "Roofline plot: " << *profile.plot << "\n";
  return out.str();
}

}  // namespace hone::profile
