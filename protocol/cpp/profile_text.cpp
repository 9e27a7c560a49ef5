// protocol/profile_text.cpp: kernel facts and profiles in words: hint labels, kernel hovers,
// roofline positions, suggestions and hone profile's text report.
#include <algorithm>
#include <sstream>

#include "protocol/verdict_text.h"

namespace hone::protocol {
namespace {

std::string bytes_text(double bytes) {
  if (bytes >= 1024.0 * 1024.0) return format_number(bytes / (1024.0 * 1024.0)) + " MiB";
  if (bytes >= 1024.0) return format_number(bytes / 1024.0) + " KiB";
  return format_number(bytes) + " B";
}

std::string dims_json(const std::array<int, 3>& a) {
  return "[" + std::to_string(a[0]) + "," + std::to_string(a[1]) + "," + std::to_string(a[2]) + "]";
}

// Whether a profiled kernel's demangled name is the kernel named `name` (its demangled signature).
bool same_kernel(const std::string& profiled, const std::string& name) {
  return profiled == name || profiled.rfind(name + "(", 0) == 0 || profiled.find(" " + name + "(") != std::string::npos ||
         profiled.find("::" + name + "(") != std::string::npos;
}

std::string profiled_kernel_markdown(const ProfiledKernel& pk) {
  std::string md = "\n**Profile**: " + format_number(pk.record.duration_us) + " µs, grid " + dims_json(pk.record.grid) +
                   " × block " + dims_json(pk.record.block) + "\n\n";
  if (!pk.metrics.empty()) {
    md += "| counter | value |\n|---|---|\n";
    for (const auto& [key, value] : pk.derived.named()) md += "| " + std::string(key) + " | " + format_number(value) + " |\n";
  }
  if (pk.roofline) md += "\n**Roofline**: " + roofline_text(*pk.roofline) + "\n";
  return md;
}

std::string num(const std::optional<double>& v, int digits, double scale = 1) { return v ? format_fixed(*v * scale, digits) : "-"; }

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
  out << format_fixed(r.duration_us, 1) << " us  grid " << dims(r.grid) << "  block " << dims(r.block) << "  regs "
      << r.registers_per_thread << "  smem " << r.static_shared_bytes + r.dynamic_shared_bytes << "\n";
  if (k.metrics.empty()) return;
  const auto& d = k.derived;
  out << "      DRAM " << num(d.dram_bytes(), 1, 1e-6) << " MB";
  if (k.roofline)
    out << " at " << format_fixed(k.roofline->achieved_bytes_per_s * 1e-12, 2) << " TB/s (" << format_fixed(k.roofline->memory_pct, 1) << "%)";
  out << "  FLOP";
  for (const auto& [p, v] : flops_by_name(d.flops))
    if (v > 0) out << " " << p << "=" << format_fixed(v, 0);
  out << "  occupancy " << num(d.achieved_occupancy_pct, 1) << "%  coalescing ld " << num(d.global_load_efficiency_pct, 1)
      << "% st " << num(d.global_store_efficiency_pct, 1) << "%\n";
}

void roofline_line(std::ostringstream& out, const char* who, const std::optional<RooflinePoint>& p) {
  if (!p) return;
  out << "  " << who << ": " << bound_name(p->bound) << "-bound, " << format_fixed(p->pct_of_roofline, 1) << "% of roofline; DRAM "
      << format_fixed(p->achieved_bytes_per_s * 1e-12, 2) << " TB/s (" << format_fixed(p->memory_pct, 1) << "% of "
      << format_fixed(p->peak_bytes_per_s * 1e-12, 2) << ", " << p->dram_source << ")";
  if (p->flops > 0)
    out << ", " << format_fixed(p->achieved_flops_per_s * 1e-12, 2) << " TFLOP/s "
        << (p->precision ? precision_name(*p->precision) : std::string_view()) << " (" << format_fixed(p->compute_pct, 1)
        << "%), AI " << format_fixed(p->arithmetic_intensity, 2) << " FLOP/B";
  out << "\n";
}

void suggestion_lines(std::ostringstream& out, int number, const Suggestion& s) {
  out << "  " << number << ". " << s.title;
  if (s.gain) out << " (est. up to " << format_fixed(s.gain->speedup, 1) << "x)";
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
  for (const SuggestionEvidence& e : s.evidence)
    out << "     evidence: " << e.metric << " = " << format_fixed(e.value, 2) << " " << e.unit
        << (e.comparison.empty() ? "" : " " + e.comparison + " " + format_fixed(e.threshold, 2)) << "\n";
  out << "     " << s.detail << "\n";
}

}  // namespace

std::string kernel_hint_label(const KernelStatic& k) {
  std::vector<std::string> parts;
  if (k.registers) parts.push_back(std::to_string(*k.registers) + " regs");
  if (k.spill_store_bytes && *k.spill_store_bytes > 0) parts.push_back(bytes_text(static_cast<double>(*k.spill_store_bytes)) + " spilled");
  if (k.static_shared_bytes) parts.push_back(bytes_text(static_cast<double>(*k.static_shared_bytes)) + " smem");
  if (k.occupancy) parts.push_back(format_number(k.occupancy->occupancy_pct) + "% occ");
  std::string label;
  for (const auto& part : parts) label += (label.empty() ? "" : " · ") + part;
  return label;
}

std::string kernel_hover_markdown(const KernelStatic& k, const ProfileReport* profile) {
  const std::string name = k.name.empty() ? "kernel" : k.name;
  std::string md = "**" + name + "**";
  if (auto line = kernel_hint_label(k); !line.empty()) md += " — " + line;
  md += "\n\n";
  if (k.occupancy) {
    const Occupancy& o = *k.occupancy;
    md += "- occupancy: " + format_number(o.occupancy_pct) + "% at " + std::to_string(o.block_size) + " threads/block (" +
          std::string(to_string(o.block_size_source)) + "), limited by " + std::string(to_string(o.limited_by)) + "\n";
  }
  const std::pair<const char*, std::optional<std::int64_t>> sizes[] = {{"spill_store_bytes", k.spill_store_bytes},
                                                                      {"spill_load_bytes", k.spill_load_bytes},
                                                                      {"stack_frame_bytes", k.stack_frame_bytes},
                                                                      {"constant_bytes", k.constant_bytes}};
  for (const auto& [key, value] : sizes)
    if (value && *value > 0) md += std::string("- ") + key + ": " + std::to_string(*value) + "\n";
  // Memory access widths and tensor-core use, from SASS where it was read, else PTX.
  if (const std::optional<InstructionFacts>& f = k.sass ? k.sass : k.ptx; f) {
    auto widths = [](const WidthCounts& w) {
      std::string out;
      for (auto it = w.rbegin(); it != w.rend(); ++it) out += (out.empty() ? "" : ", ") + std::to_string(it->first) + "-bit ×" + std::to_string(it->second);
      return out.empty() ? std::string("none") : out;
    };
    const char* from = k.sass ? "SASS" : "PTX";
    md += std::string("- global loads (") + from + "): " + widths(f->global_loads) + "; stores: " + widths(f->global_stores) + "\n";
    if (f->local_loads + f->local_stores > 0)
      md += "- local memory: " + std::to_string(f->local_loads) + " loads, " + std::to_string(f->local_stores) + " stores\n";
    md += std::string("- tensor cores: ") + (f->tensor_core ? "yes" : "no");
    if (f->tensor_core && !f->tensor_core_instructions.empty()) md += " (" + f->tensor_core_instructions.front() + ")";
    md += "\n";
  }
  if (!profile) return md;
  for (const ProfiledKernel& pk : profile->candidate.kernels) {
    if (!same_kernel(pk.record.name, name)) continue;
    md += profiled_kernel_markdown(pk);
    break;
  }
  if (!profile->candidate.counters.available)
    md += "\ncounters unavailable: " +
          (profile->candidate.counters.message.empty() ? std::string("not collected") : profile->candidate.counters.message) + "\n";
  return md;
}

std::string roofline_text(const RooflinePoint& r) {
  return std::string(bound_name(r.bound)) + "-bound, " + format_number(r.pct_of_roofline) + "% of the roofline (DRAM " +
         format_number(r.memory_pct) + "% of peak, compute " + format_number(r.compute_pct) +
         "% of peak), arithmetic intensity " + format_number(r.arithmetic_intensity) + " FLOP/byte";
}

std::string suggestion_text(const Suggestion& s) {
  std::string text = s.title.empty() ? "suggestion" : s.title;
  std::string parts;
  for (const SuggestionEvidence& e : s.evidence) {
    std::string piece = (e.metric.empty() ? "?" : e.metric) + " = " + format_number(e.value);
    if (!e.unit.empty()) piece += " " + e.unit;
    if (!e.comparison.empty()) piece += " " + e.comparison + " " + format_number(e.threshold);
    parts += (parts.empty() ? "" : ", ") + piece;
  }
  if (!parts.empty()) text += " (" + parts + ")";
  if (s.gain) text += " — est. up to " + format_number(s.gain->speedup) + "× faster";
  return text;
}

std::string profile_text(const ProfileReport& profile) {
  std::ostringstream out;
  const CallProfile& cand = profile.candidate;
  const CountersStatus& counters = cand.counters;
  out << "Profile on " << profile.device.name;
  if (counters.available)
    out << " (counters: " << counters.set << " set, " << counters.passes << " pass(es), " << counters.source << ", chip "
        << counters.chip << ")\n";
  else
    out << "\n  counters unavailable: " << counters.message << "\n";
  out << "Kernels of the candidate (own share " << format_fixed(cand.own_share * 100, 1) << "%, own " << format_fixed(cand.own_us, 1)
      << " us, library " << format_fixed(cand.library_us, 1) << " us, copies " << format_fixed(cand.copy_us, 1) << " us):\n";
  for (const ProfiledKernel& k : cand.kernels) kernel_lines(out, k);
  if (!cand.match_note.empty()) out << "  note: " << cand.match_note << "\n";
  out << "Roofline:\n";
  roofline_line(out, "candidate", cand.roofline);
  if (profile.reference) roofline_line(out, "reference", profile.reference->roofline);
  out << "Suggestions" << (profile.suggestions.empty() ? ": none (no rule fired)\n" : ":\n");
  int i = 0;
  for (const Suggestion& s : profile.suggestions) suggestion_lines(out, ++i, s);
  if (profile.sass && profile.sass->available) {
    std::size_t instructions = 0;
    for (const SassKernel& k : profile.sass->kernels) instructions += k.instructions.size();
    std::string metrics;
    for (const std::string& m : profile.sass->metrics) metrics += (metrics.empty() ? "" : ", ") + m;
    out << "Per-instruction counters: " << instructions << " SASS instructions of " << profile.sass->kernels.size()
        << " kernel(s) (" << metrics << "), shown beside the SASS of this build\n";
  }
  for (const std::string& n : profile.notes) out << "Note: " << n << "\n";
  out << "Profiling overhead: traced call " << format_fixed(profile.overhead.activity_seconds, 3) << " s, counter replay "
      << format_fixed(profile.overhead.replay_seconds, 3) << " s\n";
  if (profile.plot) out << "Roofline plot: " << *profile.plot << "\n";
  return out.str();
}

}  // namespace hone::protocol
