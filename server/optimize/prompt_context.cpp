// optimize/prompt_context.cpp: turning verdicts, profiles and histories into template variables.
#include "optimize/prompt_context.h"

#include <cmath>
#include <cstdio>

namespace hone {
namespace {

using nlohmann::json;

std::optional<double> number_at(const json& j, const char* pointer) {
  json::json_pointer p(pointer);
  if (!j.is_object() || !j.contains(p)) return std::nullopt;
  const auto& v = j.at(p);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::string string_at(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string shape_text(const json& shape) {
  if (!shape.is_array()) return "";
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].dump();
  return s + "]";
}

json tensor_specs(const json& list) {
  json out = json::array();
  if (!list.is_array()) return out;
  for (const auto& t : list) {
    json e = {{"name", string_at(t, "name")}, {"dtype", string_at(t, "dtype")}};
    if (t.contains("shape")) e["shape"] = shape_text(t["shape"]);
    if (e["dtype"] == "") e["dtype"] = string_at(t, "kind");
    out.push_back(e);
  }
  return out;
}

std::string mismatch_text(const json& verdict) {
  const json* trials = nullptr;
  if (verdict.contains("/correctness/trials"_json_pointer)) trials = &verdict["correctness"]["trials"];
  if (!trials || !trials->is_array()) return "";
  for (const auto& t : *trials) {
    if (t.value("passed", true)) continue;
    std::string s;
    if (t.contains("mismatch") && t["mismatch"].is_object()) {
      const auto& m = t["mismatch"];
      s = "output " + (m.contains("output") ? m["output"].dump() : std::string("0"));
      if (m.contains("index")) s += " at " + shape_text(m["index"]);
      if (m.contains("got")) s += ": got " + m["got"].dump();
      if (m.contains("expected")) s += ", expected " + m["expected"].dump();
      if (m.contains("count")) s += " (" + m["count"].dump() + " elements out of tolerance)";
    } else {
      s = "outputs differ";
    }
    if (t.contains("seed")) s += " with seed " + t["seed"].dump();
    if (auto e = number_at(t, "/max_abs_error")) s += "; max abs error " + format_number(*e);
    return s;
  }
  return "";
}

json verdict_context(const json& v) {
  json out = json::object();
  std::string status = string_at(v, "status");
  out["status"] = status;
  out["correct"] = status == "correct";
  out["reason"] = string_at(v, "reason");
  json errors = json::array();
  if (v.contains("/compile/diagnostics"_json_pointer) && v["compile"]["diagnostics"].is_array()) {
    for (const auto& d : v["compile"]["diagnostics"]) {
      if (string_at(d, "severity") != "error" || errors.size() >= 20) continue;
      json e = {{"message", string_at(d, "message")}, {"line", d.value("line", 0)}};
      if (d.value("column", 0) > 0) e["column"] = d["column"];
      errors.push_back(e);
    }
  }
  out["compile_errors"] = errors;
  out["has_compile_errors"] = !errors.empty();
  out["mismatch"] = mismatch_text(v);
  auto p50 = number_at(v, "/timing/p50_us");
  if (p50) out["p50_us"] = format_number(*p50);
  if (auto e = number_at(v, "/baselines/eager/p50_us")) out["baseline_eager_us"] = format_number(*e);
  if (auto c = number_at(v, "/baselines/compile/p50_us")) out["baseline_compile_us"] = format_number(*c);
  if (auto s = number_at(v, "/speedup/eager")) out["speedup_eager"] = format_number(*s);
  if (auto s = number_at(v, "/speedup/compile")) out["speedup_compile"] = format_number(*s);
  if (auto f = number_at(v, "/floor/floor_us"); f && p50 && *p50 > 0) {
    out["floor_us"] = format_number(*f);
    out["sol_pct"] = format_number(100.0 * *f / *p50);
  }
  json flags = json::array();
  if (v.contains("flags") && v["flags"].is_array())
    for (const auto& f : v["flags"]) flags.push_back({{"id", string_at(f, "id")}, {"message", string_at(f, "message")}});
  out["flags"] = flags;
  json kernels = json::array();
  if (v.contains("/compile/kernels"_json_pointer) && v["compile"]["kernels"].is_array()) {
    for (const auto& k : v["compile"]["kernels"]) {
      json e = {{"name", string_at(k, "name")}};
      if (auto r = number_at(k, "/registers")) e["registers"] = format_number(*r);
      double spills = number_at(k, "/spill_store_bytes").value_or(0) + number_at(k, "/spill_load_bytes").value_or(0);
      if (spills > 0) e["spills"] = format_number(spills);
      if (auto s = number_at(k, "/static_shared_bytes"); s && *s > 0) e["shared_bytes"] = format_number(*s);
      if (auto o = number_at(k, "/occupancy/occupancy_pct")) e["occupancy_pct"] = format_number(*o);
      kernels.push_back(e);
    }
  }
  out["kernels"] = kernels;
  out["has_kernels"] = !kernels.empty();
  return out;
}

// profile.schema.json: the candidate call's roofline point, its own kernels' derived counters,
// and the ranked suggestions.
json profile_context(const json& p) {
  json out = json::object();
  const json call = p.contains("candidate") && p["candidate"].is_object() ? p["candidate"] : json::object();
  if (call.contains("roofline") && call["roofline"].is_object()) {
    const auto& r = call["roofline"];
    std::string text = "Roofline: " + string_at(r, "bound") + "-bound";
    if (auto pct = number_at(r, "/pct_of_roofline")) text += ", " + format_number(*pct) + "% of the roofline";
    auto mem = number_at(r, "/memory_pct"), comp = number_at(r, "/compute_pct");
    if (mem && comp) text += " (DRAM " + format_number(*mem) + "% of peak, compute " + format_number(*comp) + "% of peak)";
    if (auto ai = number_at(r, "/arithmetic_intensity")) text += ", arithmetic intensity " + format_number(*ai) + " FLOP/byte";
    out["roofline"] = text + ".";
  }
  if (call.contains("counters") && call["counters"].is_object() && !call["counters"].value("available", true))
    out["roofline"] = "Hardware counters unavailable: " + call["counters"].value("message", std::string("no reason given"));
  json counters = json::array();
  static const char* kShown[] = {"dram_bytes", "global_load_efficiency_pct", "global_store_efficiency_pct",
                                 "achieved_occupancy_pct", "shared_wavefronts_per_request", "divergent_branch_pct",
                                 "local_memory_instructions", "l2_hit_pct", "tensor_instructions"};
  if (call.contains("kernels") && call["kernels"].is_array())
    for (const auto& k : call["kernels"]) {
      if (!k.value("own", false) || !k.contains("derived") || !k["derived"].is_object()) continue;
      for (const char* key : kShown)
        if (auto v = number_at(k["derived"], (std::string("/") + key).c_str()))
          counters.push_back({{"name", string_at(k, "name") + " " + key}, {"value", format_number(*v)}});
    }
  out["counters"] = counters;
  json suggestions = json::array();
  if (p.contains("suggestions") && p["suggestions"].is_array())
    for (const auto& sug : p["suggestions"]) {
      std::string text = sug.is_string() ? sug.get<std::string>() : string_at(sug, "title");
      if (sug.is_object() && !string_at(sug, "detail").empty()) text += ": " + string_at(sug, "detail");
      if (!text.empty()) suggestions.push_back(text);
    }
  out["suggestions"] = suggestions;
  out["has_suggestions"] = !suggestions.empty();
  return out;
}

}  // namespace

std::string format_number(double value) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : (value < 0 ? "-inf" : "nan");
  double mag = std::fabs(value);
  char buf[64];
  if (mag >= 100 || value == std::floor(value))
    std::snprintf(buf, sizeof buf, "%.0f", value);
  else
    std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

std::string short_reason(const std::string& reason, std::size_t max_chars) {
  std::string s = reason.substr(0, reason.find('\n'));
  if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
  return s;
}

json gpu_prompt_facts(const json& spec) {
  if (!spec.is_object()) return nullptr;
  json out = {{"name", string_at(spec, "name")}, {"arch", string_at(spec, "arch")}};
  auto put = [&](const char* key, const char* ptr, double scale) {
    if (auto v = number_at(spec, ptr); v && *v > 0) out[key] = format_number(*v / scale);
  };
  put("sm_count", "/sm_count", 1);
  put("dram_gb_per_s", "/peak_dram_bytes_per_s", 1e9);
  put("l2_mb", "/l2_bytes", 1024.0 * 1024.0);
  put("shared_kb_per_sm", "/shared_bytes_per_sm", 1024.0);
  put("fp32_tflops", "/fp32", 1e12);
  put("fp16_tensor_tflops", "/fp16_tensor", 1e12);
  put("bf16_tensor_tflops", "/bf16_tensor", 1e12);
  return out;
}

json prompt_context(const PromptInputs& in) {
  bool cuda = in.device == "cuda";
  auto rstrip = [](std::string s) {
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    return s;
  };
  json ctx = {{"language", cuda ? "CUDA C++" : "C++"},
              {"fence", cuda ? "cuda" : "cpp"},
              {"is_cuda", cuda},
              {"is_cpu", !cuda},
              {"round", in.round},
              {"task", {{"name", in.task_name}, {"path", in.task_path}, {"source", rstrip(in.task_source)}}},
              {"kernel", {{"path", in.kernel_path}, {"source", rstrip(in.kernel_source)}}}};
  json sig = {{"raw", string_at(in.signature, "raw")}, {"torch", string_at(in.signature, "torch")}};
  for (const char* key : {"inputs", "params", "outputs"})
    sig[key] = tensor_specs(in.signature.is_object() && in.signature.contains(key) ? in.signature[key] : json());
  sig["has_params"] = !sig["params"].empty();
  ctx["signature"] = sig;
  if (!in.verdict.is_null()) ctx["verdict"] = verdict_context(in.verdict);
  if (in.profile.is_object() && !in.profile.empty()) ctx["profile"] = profile_context(in.profile);
  if (cuda && in.gpu.is_object()) ctx["gpu"] = in.gpu;
  json history = json::array();
  for (const auto& h : in.history) {
    json e = {{"id", h.id}, {"round", h.round}, {"status", h.status}, {"note", short_reason(h.note)}};
    if (h.parent) e["parent"] = *h.parent;
    if (h.p50_us) e["p50_us"] = format_number(*h.p50_us);
    if (h.speedup_eager) e["speedup"] = format_number(*h.speedup_eager);
    history.push_back(e);
  }
  ctx["history"] = history;
  ctx["has_history"] = !history.empty();
  std::string hint = rstrip(in.hint);
  if (std::size_t first = hint.find_first_not_of(" \t\r\n"); first != std::string::npos) ctx["hint"] = hint.substr(first);
  return ctx;
}

}  // namespace hone
