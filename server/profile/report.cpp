// profile/report.cpp: assembling the profile report from parsed calls, ceilings, roofline and rules.
#include "profile/report.h"

#include "profile/kernel_profile.h"
#include "profile/roofline.h"
#include "profile/rules.h"
#include "profile/svg_roofline.h"
#include "support/hash.h"

namespace hone::profile {
namespace {

DeviceLimits limits_for(const DeviceFacts& d, const std::optional<GpuSpec>& spec) {
  DeviceLimits l;
  l.sm_count = d.sm_count > 0 ? d.sm_count : (spec ? spec->sm_count : 0);
  if (d.max_threads_per_sm > 0) l.max_warps_per_sm = static_cast<int>(d.max_threads_per_sm / 32);
  else if (spec) l.max_warps_per_sm = static_cast<int>(spec->max_warps_per_sm);
  if (spec) l.max_blocks_per_sm = static_cast<int>(spec->max_blocks_per_sm);
  l.registers_per_sm = d.registers_per_sm > 0 ? static_cast<int>(d.registers_per_sm) : (spec ? static_cast<int>(spec->registers_per_sm) : 65536);
  l.shared_bytes_per_sm = d.shared_bytes_per_sm > 0 ? static_cast<int>(d.shared_bytes_per_sm) : (spec ? static_cast<int>(spec->shared_bytes_per_sm) : 0);
  return l;
}

std::optional<double> device_peak(const ProfiledCall& call) {
  for (const ProfiledKernel& k : call.kernels)
    if (k.derived.device_peak_dram_bytes_per_s) return k.derived.device_peak_dram_bytes_per_s;
  return std::nullopt;
}

// The roofline input of a set of kernels; nullopt when one of them has no DRAM counters.
std::optional<RooflineInput> aggregate(const ProfiledCall& call, const std::string& label, bool own_only) {
  RooflineInput in;
  in.label = label;
  bool any = false;
  for (const ProfiledKernel& k : call.kernels) {
    if (own_only && !k.record.own) continue;
    auto bytes = k.derived.dram_bytes();
    if (!bytes) return std::nullopt;
    any = true;
    in.seconds += k.record.duration_us * 1e-6;
    in.dram_bytes += *bytes;
    for (const auto& [p, v] : k.derived.flops) in.flops[p] += v;
  }
  if (!any) return std::nullopt;
  return in;
}

const protocol::KernelStatic* static_for(const ProfiledKernel& k, const protocol::CompileReport* compile) {
  if (!compile) return nullptr;
  std::string base = base_kernel_name(k.record.name);
  for (const protocol::KernelStatic& s : compile->kernels)
    if (s.mangled == k.record.mangled || base_kernel_name(s.name) == base) return &s;
  return nullptr;
}

struct SideReport {
  protocol::CallProfile report;
  std::optional<RooflinePoint> point;
};

SideReport side_report(const ProfiledCall& call, const std::string& label, bool own_only, const Ceilings& ceilings) {
  SideReport out;
  for (const ProfiledKernel& k : call.kernels) {
    ProfiledKernel kernel = k;
    if (!k.metrics.empty() && k.derived.dram_bytes()) {
      RooflineInput in{base_kernel_name(k.record.name), k.record.duration_us * 1e-6, *k.derived.dram_bytes(), k.derived.flops};
      kernel.roofline = roofline_point(in, ceilings);
    }
    out.report.kernels.push_back(std::move(kernel));
  }
  double total = call.own_us() + call.library_us() + call.copy_us();
  out.report.own_us = call.own_us();
  out.report.library_us = call.library_us();
  out.report.copy_us = call.copy_us();
  out.report.own_share = total > 0 ? call.own_us() / total : 0.0;
  out.report.counters = call.counters;
  out.report.match_note = call.match_note;
  if (auto in = aggregate(call, label, own_only)) out.point = roofline_point(*in, ceilings);
  out.report.roofline = out.point;
  return out;
}

// The user-file lines of the build's instructions; empty when its PTX cannot be read.
PtxSourceLines read_source_lines(const ProfileInputs& in) {
  std::filesystem::path ptx = in.ptx;
  if (ptx.empty() && in.compile && !in.compile->library.empty())
    ptx = std::filesystem::path(in.compile->library).parent_path() / "kernel.ptx";
  std::error_code ec;
  if (ptx.empty() || in.kernel_file.empty() || !std::filesystem::is_regular_file(ptx, ec)) return {};
  try {
    return parse_ptx_source_lines(read_file(ptx), in.kernel_file);
  } catch (const std::exception&) {
    return {};  // unreadable now (a cache entry being replaced): suggestions point at the kernel
  }
}

// What the report says besides its numbers: missing counters and why, a call without own kernels.
std::vector<std::string> notes(const ProfileInputs& in, const ProfiledCall& candidate) {
  std::vector<std::string> out;
  if (!candidate.counters.available)
    out.push_back("hardware counters unavailable: " + candidate.counters.message + " (no counter values are shown)");
  if (!candidate.counters.available && candidate.counters.code == "insufficient_privileges" && !in.sandbox_mode.empty() &&
      in.sandbox_mode != "none")
    out.push_back("the candidate ran in hone's sandbox (" + in.sandbox_mode +
                  "), as an unprivileged user when hone runs as root: counters restricted to administrators cannot be read "
                  "there. Profile with --no-sandbox (the candidate then runs unconfined, as you), or let all users read "
                  "counters (NVreg_RestrictProfilingToAdminUsers=0)");
  if (candidate.own_us() <= 0 && !candidate.kernels.empty()) out.push_back("no kernel of the candidate's own was launched");
  return out;
}

}  // namespace

ProfileOutput build_profile_report(const ProfileInputs& in) {
  const nlohmann::json& r = in.worker_result;
  if (!r.is_object() || !r.contains("candidate")) throw std::runtime_error("profile result: no 'candidate' in " + r.dump().substr(0, 200));
  ProfiledCall candidate = parse_profiled_call(r["candidate"], in.own_kernels);
  std::optional<ProfiledCall> reference;
  if (r.contains("reference") && r["reference"].is_object()) reference = parse_profiled_call(r["reference"], {});

  std::optional<GpuSpec> spec = find_gpu_spec(in.device.name);
  Ceilings ceilings = effective_ceilings(spec, in.measured, device_peak(candidate));
  DeviceLimits limits = limits_for(in.device, spec);

  SideReport cand = side_report(candidate, "candidate", true, ceilings);
  std::optional<SideReport> ref;
  if (reference) ref = side_report(*reference, "reference", false, ceilings);

  const PtxSourceLines source_lines = read_source_lines(in);
  std::vector<KernelRuleInput> rule_inputs;
  for (const ProfiledKernel& k : candidate.kernels) {
    if (!k.record.own) continue;
    KernelRuleInput ri;
    ri.kernel = &k;
    ri.static_facts = static_for(k, in.compile);
    if (k.derived.dram_bytes())
      ri.point = roofline_point({base_kernel_name(k.record.name), k.record.duration_us * 1e-6, *k.derived.dram_bytes(), k.derived.flops}, ceilings);
    ri.ceilings = &ceilings;
    ri.device = limits;
    ri.task_dtype = in.task_dtype;
    ri.kernel_file = in.kernel_file;
    ri.ptx_lines = &source_lines;
    rule_inputs.push_back(ri);
  }
  std::vector<Suggestion> suggestions = run_rules(rule_inputs, {&candidate, in.compulsory_bytes, cand.point});

  ProfileOutput out;
  protocol::ProfileReport& report = out.report;
  report.device = in.device;
  report.spec = spec;
  report.ceilings = ceilings;
  report.measured_ceilings = in.measured;
  report.task_dtype = in.task_dtype;
  report.compulsory_bytes = in.compulsory_bytes;
  report.candidate = cand.report;
  if (ref) report.reference = ref->report;
  report.suggestions = std::move(suggestions);
  report.overhead = {candidate.activity_seconds, candidate.replay_seconds,
                     r.value("seconds", nlohmann::json::object()).value("total", 0.0)};
  report.notes = notes(in, candidate);
  report.sass = protocol::sass_counters_from_worker(r["candidate"], "the worker did not count per SASS instruction");
  // A reason of its own: none for a worker that did not try, and the counters' note says a shared one.
  if (!report.sass->available && report.sass->code != "not_collected" && report.sass->message != candidate.counters.message)
    report.notes.push_back("no per-instruction (SASS) counters: " + report.sass->message);
  std::vector<PlotPoint> plot;
  if (cand.point) plot.push_back({*cand.point, false});
  if (ref && ref->point) plot.push_back({ref->point.value(), true});
  std::vector<Precision> tensor_roof;
  if (in.task_dtype == "float16") tensor_roof.push_back(Precision::fp16_tensor);
  if (in.task_dtype == "bfloat16") tensor_roof.push_back(Precision::bf16_tensor);
  if (!plot.empty()) out.svg = roofline_svg(plot, ceilings, "Roofline on " + in.device.name, tensor_roof);
  return out;
}

}  // namespace hone::profile
