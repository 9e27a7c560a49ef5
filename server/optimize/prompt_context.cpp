// optimize/prompt_context.cpp: turning verdicts, profiles and histories into template variables.
#include "optimize/prompt_context.h"

#include <filesystem>

#include "protocol/verdict_text.h"

namespace hone {
namespace {

using nlohmann::json;
using protocol::format_number;
using protocol::short_reason;

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

json tensor_specs(const std::vector<protocol::TensorSpec>& list) {
  json out = json::array();
  for (const auto& t : list) {
    json e = {{"name", t.name}, {"dtype", t.dtype.value_or("")}};
    if (t.kind == "tensor" || !t.shape.empty()) e["shape"] = shape_text(t.shape);
    if (e["dtype"] == "") e["dtype"] = t.kind;
    out.push_back(e);
  }
  return out;
}

json compile_errors(const protocol::CompileReport& compile) {
  json errors = json::array();
  for (const auto& d : compile.diagnostics) {
    if (d.severity != protocol::Severity::Error || errors.size() >= 20) continue;
    json e = {{"message", d.message}, {"line", d.line}};
    if (d.column > 0) e["column"] = d.column;
    errors.push_back(e);
  }
  return errors;
}

json kernel_facts(const protocol::CompileReport& compile) {
  json kernels = json::array();
  for (const auto& k : compile.kernels) {
    json e = {{"name", k.name}};
    if (k.registers) e["registers"] = format_number(static_cast<double>(*k.registers));
    double spills = static_cast<double>(k.spill_store_bytes.value_or(0) + k.spill_load_bytes.value_or(0));
    if (spills > 0) e["spills"] = format_number(spills);
    if (k.static_shared_bytes && *k.static_shared_bytes > 0) e["shared_bytes"] = format_number(static_cast<double>(*k.static_shared_bytes));
    if (k.occupancy) e["occupancy_pct"] = format_number(k.occupancy->occupancy_pct);
    kernels.push_back(e);
  }
  return kernels;
}

json outcome_context(const std::string& status, const std::string& reason) {
  return {{"status", status},         {"correct", status == "correct"}, {"reason", reason},
          {"compile_errors", json::array()}, {"has_compile_errors", false}, {"mismatch", ""},
          {"flags", json::array()},   {"kernels", json::array()},       {"has_kernels", false}};
}

// A point, or on a noisy timing the range ("1.4–2.1"); "" when neither (the template writes the ×).
std::string speedup(const std::optional<double>& point, const std::optional<protocol::SpeedupRange>& range) {
  if (point) return format_number(*point);
  std::string r = protocol::format_speedup(point, range);
  return r.empty() ? r : r.substr(0, r.size() - std::string("×").size());
}

json verdict_context(const protocol::Verdict& v) {
  json out = outcome_context(std::string(protocol::to_string(v.status)), v.reason.value_or(""));
  out["compile_errors"] = compile_errors(v.compile);
  out["has_compile_errors"] = !out["compile_errors"].empty();
  out["mismatch"] = protocol::mismatch_text(v);
  if (v.timing) out["p50_us"] = format_number(v.timing->p50_us);
  if (v.baselines && v.baselines->eager) out["baseline_eager_us"] = format_number(v.baselines->eager->p50_us);
  if (v.baselines && v.baselines->compile) out["baseline_compile_us"] = format_number(v.baselines->compile->p50_us);
  if (v.speedup) {
    if (auto e = speedup(v.speedup->eager, v.speedup->eager_range); !e.empty()) out["speedup_eager"] = e;
    if (auto c = speedup(v.speedup->compile, v.speedup->compile_range); !c.empty()) out["speedup_compile"] = c;
  }
  if (v.floor && v.timing && v.timing->p50_us > 0) {
    out["floor_us"] = format_number(v.floor->floor_us);
    out["sol_pct"] = format_number(100.0 * v.floor->floor_us / v.timing->p50_us);
  }
  json flags = json::array();
  for (const auto& f : v.flags) flags.push_back({{"id", f.id}, {"message", f.message}});
  out["flags"] = flags;
  out["kernels"] = kernel_facts(v.compile);
  out["has_kernels"] = !out["kernels"].empty();
  return out;
}

// The candidate call's roofline point, its own kernels' derived counters, and the ranked suggestions.
json profile_context(const protocol::ProfileReport& p) {
  json out = json::object();
  const protocol::CallProfile& call = p.candidate;
  if (call.roofline) out["roofline"] = "Roofline: " + protocol::roofline_text(*call.roofline) + ".";
  if (!call.counters.available)
    out["roofline"] = "Hardware counters unavailable: " + (call.counters.message.empty() ? "no reason given" : call.counters.message);
  json counters = json::array();
  static const std::string_view kShown[] = {"dram_bytes", "global_load_efficiency_pct", "global_store_efficiency_pct",
                                            "achieved_occupancy_pct", "shared_wavefronts_per_request", "divergent_branch_pct",
                                            "local_memory_instructions", "l2_hit_pct", "tensor_instructions"};
  for (const auto& k : call.kernels) {
    if (!k.record.own || k.metrics.empty()) continue;
    const auto named = k.derived.named();
    for (std::string_view key : kShown)
      for (const auto& [name, value] : named)
        if (name == key) counters.push_back({{"name", k.record.name + " " + std::string(key)}, {"value", format_number(value)}});
  }
  out["counters"] = counters;
  json suggestions = json::array();
  for (const auto& sug : p.suggestions) {
    std::string text = sug.title;
    if (!sug.detail.empty()) text += ": " + sug.detail;
    if (!text.empty()) suggestions.push_back(text);
  }
  out["suggestions"] = suggestions;
  out["has_suggestions"] = !suggestions.empty();
  return out;
}

}  // namespace

json gpu_prompt_facts(const protocol::DeviceFacts& device, const std::optional<protocol::GpuSpec>& spec) {
  json out = {{"name", device.name}, {"arch", device.arch}};
  auto put = [&](const char* key, std::optional<double> v, double scale) {
    if (v && *v > 0) out[key] = format_number(*v / scale);
  };
  put("sm_count", device.sm_count, 1);
  put("dram_gb_per_s", spec ? std::optional(spec->peak_dram_bytes_per_s) : device.theoretical_dram_bytes_per_s(), 1e9);
  put("l2_mb", static_cast<double>(device.l2_bytes), 1024.0 * 1024.0);
  put("shared_kb_per_sm", device.shared_bytes_per_sm, 1024.0);
  if (spec) {
    put("fp32_tflops", spec->peak_flops(protocol::Precision::fp32), 1e12);
    put("fp16_tensor_tflops", spec->peak_flops(protocol::Precision::fp16_tensor), 1e12);
    put("bf16_tensor_tflops", spec->peak_flops(protocol::Precision::bf16_tensor), 1e12);
  }
  return out;
}

json prompt_context(const PromptInputs& in) {
  const bool cuda = in.device.is_cuda();
  auto rstrip = [](std::string s) {
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    return s;
  };
  // A KernelBench answer (.py): the file is proposed whole, in its own form.
  const bool answer = std::filesystem::path(in.kernel_path).extension() == ".py";
  json ctx = {{"language", cuda ? "CUDA C++" : "C++"},
              {"fence", answer ? "python" : cuda ? "cuda" : "cpp"},
              {"is_answer", answer},
              {"is_hone_form", !answer},
              {"is_cuda", cuda},
              {"is_cpu", !cuda},
              {"round", in.round},
              {"task", {{"name", in.task_name}, {"path", in.task_path}, {"source", rstrip(in.task_source)}}},
              {"kernel", {{"path", in.kernel_path}, {"source", rstrip(in.kernel_source)}}}};
  const protocol::Signature sig_in = in.signature.value_or(protocol::Signature{});
  json sig = {{"raw", sig_in.raw}, {"torch", sig_in.torch}, {"inputs", tensor_specs(sig_in.inputs)},
              {"params", tensor_specs(sig_in.params)}, {"outputs", tensor_specs(sig_in.outputs)}};
  sig["has_params"] = !sig["params"].empty();
  ctx["signature"] = sig;
  if (in.verdict) ctx["verdict"] = verdict_context(*in.verdict);
  else if (in.outcome) ctx["verdict"] = outcome_context(in.outcome->status, in.outcome->reason);
  if (in.verdict && in.verdict->profile) ctx["profile"] = profile_context(*in.verdict->profile);
  if (cuda && in.gpu) ctx["gpu"] = gpu_prompt_facts(*in.gpu, in.gpu_spec);
  json history = json::array();
  for (const auto& h : in.history) {
    json e = {{"id", h.id}, {"round", h.round}, {"status", h.status}, {"note", short_reason(h.note)}};
    if (h.parent) e["parent"] = *h.parent;
    if (h.p50_us) e["p50_us"] = format_number(*h.p50_us);
    if (auto sp = speedup(h.speedup_eager, h.speedup_eager_range); !sp.empty()) e["speedup"] = sp;
    history.push_back(e);
  }
  ctx["history"] = history;
  ctx["has_history"] = !history.empty();
  std::string hint = rstrip(in.hint);
  if (std::size_t first = hint.find_first_not_of(" \t\r\n"); first != std::string::npos) ctx["hint"] = hint.substr(first);
  return ctx;
}

}  // namespace hone
