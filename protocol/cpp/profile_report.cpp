// protocol/profile_report.cpp: JSON conversion of the profile report (shape:
// protocol/schema/profile.schema.json).
#include "protocol/profile_report.h"

#include <algorithm>
#include <stdexcept>

namespace hone::protocol {
namespace {

using nlohmann::json;

template <class T>
void get(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

template <class T>
void get(const json& j, const char* key, std::optional<T>& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) out = it->get<T>();
}

// A number the device may or may not have reported (any numeric type), left as it is otherwise.
template <class T>
void number(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && it->is_number()) out = it->get<T>();
}

void need_object(const json& j, const char* what) {
  if (!j.is_object()) throw std::runtime_error(std::string(what) + ": expected an object, got " + j.dump().substr(0, 200));
}

json optional_json(const auto& v) { return v ? json(*v) : json(); }

json precision_map(const std::map<Precision, double>& m) {
  json out = json::object();
  for (const auto& [p, v] : m) out[std::string(precision_name(p))] = v;
  return out;
}

std::map<Precision, double> precision_map_from(const json& j, const char* what) {
  std::map<Precision, double> out;
  if (!j.is_object()) return out;
  for (const auto& [name, value] : j.items()) {
    auto p = parse_precision(name);
    if (!p) throw std::runtime_error(std::string(what) + ": unknown precision '" + name + "'");
    if (value.is_number()) out[*p] = value.get<double>();
  }
  return out;
}

// The spec's peak field of a precision (const or not).
template <class Spec>
auto spec_peak(Spec& s, Precision p) -> decltype((s.fp32)) {
  switch (p) {
    case Precision::fp64: return s.fp64;
    case Precision::fp32: return s.fp32;
    case Precision::fp16: return s.fp16;
    case Precision::bf16: return s.bf16;
    case Precision::fp64_tensor: return s.fp64_tensor;
    case Precision::tf32_tensor: return s.tf32_tensor;
    case Precision::fp16_tensor: return s.fp16_tensor;
    case Precision::bf16_tensor: return s.bf16_tensor;
    case Precision::fp8_tensor: return s.fp8_tensor;
    case Precision::int8_tensor: return s.int8_tensor;
  }
  return s.fp32;
}

json derived_json(const DerivedMetrics& d) {
  json j = json::object();
  for (const auto& [name, value] : d.named()) j[std::string(name)] = value;
  j["flops"] = precision_map(d.flops);
  return j;
}

DerivedMetrics derived_from(const json& j) {
  DerivedMetrics d;
  if (!j.is_object()) return d;
  get(j, "dram_read_bytes", d.dram_read_bytes);
  get(j, "dram_write_bytes", d.dram_write_bytes);
  get(j, "global_load_efficiency_pct", d.global_load_efficiency_pct);
  get(j, "global_store_efficiency_pct", d.global_store_efficiency_pct);
  get(j, "shared_wavefronts_per_request", d.shared_wavefronts_per_request);
  get(j, "divergent_branch_pct", d.divergent_branch_pct);
  get(j, "local_memory_instructions", d.local_memory_instructions);
  get(j, "achieved_occupancy_pct", d.achieved_occupancy_pct);
  get(j, "tensor_instructions", d.tensor_instructions);
  get(j, "sm_clock_hz", d.sm_clock_hz);
  get(j, "l1_hit_pct", d.l1_hit_pct);
  get(j, "l2_hit_pct", d.l2_hit_pct);
  get(j, "active_threads_per_instruction", d.active_threads_per_instruction);
  if (auto it = j.find("flops"); it != j.end()) d.flops = precision_map_from(*it, "derived flops");
  return d;
}

std::array<int, 3> dims(const json& j, const char* key) {
  std::array<int, 3> d{1, 1, 1};
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (std::size_t i = 0; i < 3 && i < it->size(); ++i) d[i] = (*it)[i].get<int>();
  return d;
}

json ceiling_json(const Ceiling& c) { return {{"value", c.value}, {"source", c.source}}; }

Ceiling ceiling_from(const json& j) {
  Ceiling c;
  get(j, "value", c.value);
  get(j, "source", c.source);
  return c;
}

}  // namespace

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::fp64: return "fp64";
    case Precision::fp32: return "fp32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp64_tensor: return "fp64_tensor";
    case Precision::tf32_tensor: return "tf32_tensor";
    case Precision::fp16_tensor: return "fp16_tensor";
    case Precision::bf16_tensor: return "bf16_tensor";
    case Precision::fp8_tensor: return "fp8_tensor";
    case Precision::int8_tensor: return "int8_tensor";
  }
  return "unknown";
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (Precision p : kAllPrecisions)
    if (precision_name(p) == name) return p;
  return std::nullopt;
}

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::latency: return "latency";
  }
  return "latency";
}

std::optional<double> GpuSpec::peak_flops(Precision p) const {
  double v = spec_peak(*this, p);
  if (v <= 0) return std::nullopt;
  return v;
}

std::optional<double> DeviceFacts::theoretical_dram_bytes_per_s() const {
  if (memory_clock_khz == 0 || memory_bus_bits == 0) return std::nullopt;
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 * memory_bus_bits / 8.0;
}

std::optional<Ceiling> Ceilings::flops_for(Precision p) const {
  auto it = flops_per_s.find(p);
  if (it == flops_per_s.end()) return std::nullopt;
  return it->second;
}

std::optional<double> DerivedMetrics::dram_bytes() const {
  if (!dram_read_bytes || !dram_write_bytes) return std::nullopt;
  return *dram_read_bytes + *dram_write_bytes;
}

double DerivedMetrics::total_flops() const {
  double t = 0;
  for (const auto& [p, v] : flops) t += v;
  return t;
}

std::vector<std::pair<std::string_view, double>> DerivedMetrics::named() const {
  std::vector<std::pair<std::string_view, double>> out;
  auto put = [&](std::string_view name, const std::optional<double>& v) {
    if (v) out.emplace_back(name, *v);
  };
  put("achieved_occupancy_pct", achieved_occupancy_pct);
  put("active_threads_per_instruction", active_threads_per_instruction);
  put("divergent_branch_pct", divergent_branch_pct);
  put("dram_bytes", dram_bytes());
  put("dram_read_bytes", dram_read_bytes);
  put("dram_write_bytes", dram_write_bytes);
  put("global_load_efficiency_pct", global_load_efficiency_pct);
  put("global_store_efficiency_pct", global_store_efficiency_pct);
  put("l1_hit_pct", l1_hit_pct);
  put("l2_hit_pct", l2_hit_pct);
  put("local_memory_instructions", local_memory_instructions);
  put("shared_wavefronts_per_request", shared_wavefronts_per_request);
  put("sm_clock_hz", sm_clock_hz);
  put("tensor_instructions", tensor_instructions);
  return out;
}

void to_json(json& j, const GpuSpec& s) {
  json peaks = json::object();
  for (Precision p : kAllPrecisions)
    if (auto v = s.peak_flops(p)) peaks[std::string(precision_name(p))] = *v;
  j = json{{"name", s.name},
           {"key", s.key},
           {"arch", s.arch},
           {"chip", s.chip},
           {"sm_count", s.sm_count},
           {"peak_dram_bytes_per_s", s.peak_dram_bytes_per_s},
           {"memory_bytes", s.memory_bytes},
           {"l2_bytes", s.l2_bytes},
           {"shared_bytes_per_sm", s.shared_bytes_per_sm},
           {"shared_bytes_per_block", s.shared_bytes_per_block},
           {"registers_per_sm", s.registers_per_sm},
           {"max_warps_per_sm", s.max_warps_per_sm},
           {"max_blocks_per_sm", s.max_blocks_per_sm},
           {"peak_flops_per_s", peaks},
           {"source", s.source}};
  if (s.boost_clock_hz > 0) j["boost_clock_hz"] = s.boost_clock_hz;
}

void from_json(const json& j, GpuSpec& s) {
  need_object(j, "GPU spec");
  get(j, "name", s.name);
  get(j, "key", s.key);
  get(j, "arch", s.arch);
  get(j, "chip", s.chip);
  number(j, "sm_count", s.sm_count);
  number(j, "boost_clock_hz", s.boost_clock_hz);
  number(j, "peak_dram_bytes_per_s", s.peak_dram_bytes_per_s);
  number(j, "memory_bytes", s.memory_bytes);
  number(j, "l2_bytes", s.l2_bytes);
  number(j, "shared_bytes_per_sm", s.shared_bytes_per_sm);
  number(j, "shared_bytes_per_block", s.shared_bytes_per_block);
  number(j, "registers_per_sm", s.registers_per_sm);
  number(j, "max_warps_per_sm", s.max_warps_per_sm);
  number(j, "max_blocks_per_sm", s.max_blocks_per_sm);
  if (auto it = j.find("peak_flops_per_s"); it != j.end())
    for (const auto& [p, v] : precision_map_from(*it, "GPU spec")) spec_peak(s, p) = v;
  get(j, "source", s.source);
}

void to_json(json& j, const DeviceFacts& f) {
  j = json{{"index", f.index},
           {"name", f.name},
           {"arch", f.arch},
           {"sm_count", f.sm_count},
           {"l2_bytes", f.l2_bytes},
           {"memory_bytes", f.memory_bytes},
           {"max_threads_per_sm", f.max_threads_per_sm},
           {"shared_bytes_per_sm", f.shared_bytes_per_sm},
           {"registers_per_sm", f.registers_per_sm},
           {"memory_clock_khz", f.memory_clock_khz},
           {"memory_bus_bits", f.memory_bus_bits},
           {"sm_clock_khz", f.sm_clock_khz}};
  if (auto bw = f.theoretical_dram_bytes_per_s()) j["theoretical_dram_bytes_per_s"] = *bw;
  if (!f.uuid.empty()) j["uuid"] = f.uuid;
}

void from_json(const json& j, DeviceFacts& f) {
  if (!j.is_object()) throw std::runtime_error("device facts: expected an object, got " + j.dump());
  if (!j.contains("name") || !j["name"].is_string())
    throw std::runtime_error("device facts: missing string field 'name' in " + j.dump());
  f.name = j["name"].get<std::string>();
  number(j, "index", f.index);
  if (j.contains("arch") && j["arch"].is_string()) f.arch = j["arch"].get<std::string>();
  if (j.contains("uuid") && j["uuid"].is_string()) f.uuid = j["uuid"].get<std::string>();
  number(j, "sm_count", f.sm_count);
  number(j, "l2_bytes", f.l2_bytes);
  number(j, "memory_bytes", f.memory_bytes);
  number(j, "max_threads_per_sm", f.max_threads_per_sm);
  number(j, "shared_bytes_per_sm", f.shared_bytes_per_sm);
  number(j, "registers_per_sm", f.registers_per_sm);
  number(j, "memory_clock_khz", f.memory_clock_khz);
  number(j, "memory_bus_bits", f.memory_bus_bits);
  number(j, "sm_clock_khz", f.sm_clock_khz);
}

void to_json(json& j, const MeasuredCeilings& m) {
  j = json{{"device_name", m.device_name},
           {"torch_version", m.torch_version},
           {"measured_at", m.measured_at},
           {"matmul_flops_per_s", precision_map(m.matmul_flops_per_s)},
           {"details", m.details}};
  j["dram_copy_bytes_per_s"] = optional_json(m.dram_copy_bytes_per_s);
}

void from_json(const json& j, MeasuredCeilings& m) {
  if (!j.is_object() || !j.contains("device_name") || !j["device_name"].is_string())
    throw std::runtime_error("measured ceilings: expected an object with a device_name, got " + j.dump());
  m.device_name = j["device_name"].get<std::string>();
  m.torch_version = j.value("torch_version", std::string());
  m.measured_at = j.value("measured_at", std::string());
  if (j.contains("dram_copy_bytes_per_s") && j["dram_copy_bytes_per_s"].is_number())
    m.dram_copy_bytes_per_s = j["dram_copy_bytes_per_s"].get<double>();
  if (auto it = j.find("matmul_flops_per_s"); it != j.end())
    m.matmul_flops_per_s = precision_map_from(*it, "measured ceilings");
  m.details = j.value("details", json::object());
}

void to_json(json& j, const Ceilings& c) {
  j = json::object();
  if (c.dram_bytes_per_s) j["dram_bytes_per_s"] = ceiling_json(*c.dram_bytes_per_s);
  json flops = json::object();
  for (const auto& [p, v] : c.flops_per_s) flops[std::string(precision_name(p))] = ceiling_json(v);
  j["flops_per_s"] = flops;
}

void from_json(const json& j, Ceilings& c) {
  need_object(j, "ceilings");
  if (auto it = j.find("dram_bytes_per_s"); it != j.end() && it->is_object()) c.dram_bytes_per_s = ceiling_from(*it);
  if (auto it = j.find("flops_per_s"); it != j.end() && it->is_object())
    for (const auto& [name, value] : it->items()) {
      auto p = parse_precision(name);
      if (!p) throw std::runtime_error("ceilings: unknown precision '" + name + "'");
      c.flops_per_s[*p] = ceiling_from(value);
    }
}

void to_json(json& j, const RooflinePoint& p) {
  j = json{{"label", p.label},
           {"seconds", p.seconds},
           {"dram_bytes", p.dram_bytes},
           {"flops", p.flops},
           {"arithmetic_intensity", p.arithmetic_intensity},
           {"achieved_flops_per_s", p.achieved_flops_per_s},
           {"achieved_bytes_per_s", p.achieved_bytes_per_s},
           {"peak_bytes_per_s", p.peak_bytes_per_s},
           {"peak_flops_per_s", p.peak_flops_per_s},
           {"ridge_intensity", p.ridge_intensity},
           {"memory_pct", p.memory_pct},
           {"compute_pct", p.compute_pct},
           {"pct_of_roofline", p.pct_of_roofline},
           {"bound", bound_name(p.bound)},
           {"dram_source", p.dram_source},
           {"flops_source", p.flops_source}};
  j["precision"] = p.precision ? json(precision_name(*p.precision)) : json();
}

void from_json(const json& j, RooflinePoint& p) {
  need_object(j, "roofline point");
  get(j, "label", p.label);
  get(j, "seconds", p.seconds);
  get(j, "dram_bytes", p.dram_bytes);
  get(j, "flops", p.flops);
  get(j, "arithmetic_intensity", p.arithmetic_intensity);
  get(j, "achieved_flops_per_s", p.achieved_flops_per_s);
  get(j, "achieved_bytes_per_s", p.achieved_bytes_per_s);
  get(j, "peak_bytes_per_s", p.peak_bytes_per_s);
  get(j, "peak_flops_per_s", p.peak_flops_per_s);
  get(j, "ridge_intensity", p.ridge_intensity);
  get(j, "memory_pct", p.memory_pct);
  get(j, "compute_pct", p.compute_pct);
  get(j, "pct_of_roofline", p.pct_of_roofline);
  get(j, "dram_source", p.dram_source);
  get(j, "flops_source", p.flops_source);
  std::string bound = j.value("bound", std::string("latency"));
  p.bound = bound == "memory" ? Bound::memory : bound == "compute" ? Bound::compute : Bound::latency;
  if (auto it = j.find("precision"); it != j.end() && it->is_string()) p.precision = parse_precision(it->get<std::string>());
}

void to_json(json& j, const ProfiledKernel& k) {
  const KernelLaunch& r = k.record;
  j = json{{"name", r.name},
           {"own", r.own},
           {"duration_us", r.duration_us},
           {"grid", r.grid},
           {"block", r.block},
           {"registers", r.registers_per_thread},
           {"shared_bytes", r.static_shared_bytes + r.dynamic_shared_bytes},
           {"local_bytes_per_thread", r.local_bytes_per_thread},
           {"stream", r.stream}};
  if (k.metrics.empty()) return;
  j["metrics"] = k.metrics;
  j["derived"] = derived_json(k.derived);
  j["roofline"] = optional_json(k.roofline);
}

void from_json(const json& j, ProfiledKernel& k) {
  need_object(j, "profiled kernel");
  if (!j.contains("name") || !j["name"].is_string()) throw std::runtime_error("profiled kernel: no name in " + j.dump().substr(0, 200));
  KernelLaunch& r = k.record;
  r.name = j["name"].get<std::string>();
  get(j, "own", r.own);
  get(j, "duration_us", r.duration_us);
  r.grid = dims(j, "grid");
  r.block = dims(j, "block");
  number(j, "registers", r.registers_per_thread);
  number(j, "shared_bytes", r.static_shared_bytes);
  number(j, "local_bytes_per_thread", r.local_bytes_per_thread);
  number(j, "stream", r.stream);
  if (auto it = j.find("metrics"); it != j.end() && it->is_object())
    for (const auto& [name, value] : it->items())
      if (value.is_number()) k.metrics[name] = value.get<double>();
  if (auto it = j.find("derived"); it != j.end()) k.derived = derived_from(*it);
  get(j, "roofline", k.roofline);
}

void to_json(json& j, const CountersStatus& c) {
  j = json{{"available", c.available}, {"source", c.source}, {"code", c.code},   {"message", c.message},
           {"chip", c.chip},           {"set", c.set},       {"passes", c.passes}, {"omitted", c.omitted}};
}

void from_json(const json& j, CountersStatus& c) {
  need_object(j, "counters");
  get(j, "available", c.available);
  get(j, "source", c.source);
  get(j, "code", c.code);
  get(j, "message", c.message);
  get(j, "chip", c.chip);
  get(j, "set", c.set);
  get(j, "passes", c.passes);
  get(j, "omitted", c.omitted);
}

void to_json(json& j, const CallProfile& c) {
  j = json{{"kernels", c.kernels}, {"own_us", c.own_us},       {"library_us", c.library_us},
           {"copy_us", c.copy_us}, {"own_share", c.own_share}, {"counters", c.counters}};
  if (!c.match_note.empty()) j["match_note"] = c.match_note;
  j["roofline"] = optional_json(c.roofline);
}

void from_json(const json& j, CallProfile& c) {
  need_object(j, "profiled call");
  get(j, "kernels", c.kernels);
  get(j, "own_us", c.own_us);
  get(j, "library_us", c.library_us);
  get(j, "copy_us", c.copy_us);
  get(j, "own_share", c.own_share);
  get(j, "counters", c.counters);
  get(j, "match_note", c.match_note);
  get(j, "roofline", c.roofline);
}

void to_json(json& j, const Suggestion& s) {
  json evidence = json::array();
  for (const SuggestionEvidence& e : s.evidence)
    evidence.push_back({{"metric", e.metric}, {"value", e.value}, {"comparison", e.comparison}, {"threshold", e.threshold}, {"unit", e.unit}});
  j = json{{"id", s.id}, {"title", s.title}, {"detail", s.detail}, {"evidence", evidence}, {"saved_us", s.saved_us}};
  j["kernel"] = s.kernel.empty() ? json() : json(s.kernel);
  j["gain"] = s.gain ? json{{"speedup", s.gain->speedup}, {"basis", s.gain->basis}} : json();
  j["location"] = json();
  if (s.location) {
    j["location"] = {{"file", s.location->file}, {"line", s.location->line}, {"scope", s.location->scope}};
    if (!s.location->lines.empty()) j["location"]["lines"] = s.location->lines;
  }
}

void from_json(const json& j, Suggestion& s) {
  need_object(j, "suggestion");
  get(j, "id", s.id);
  get(j, "title", s.title);
  get(j, "detail", s.detail);
  get(j, "kernel", s.kernel);
  get(j, "saved_us", s.saved_us);
  if (auto it = j.find("evidence"); it != j.end() && it->is_array())
    for (const json& e : *it) {
      SuggestionEvidence ev;
      get(e, "metric", ev.metric);
      get(e, "value", ev.value);
      get(e, "comparison", ev.comparison);
      get(e, "threshold", ev.threshold);
      get(e, "unit", ev.unit);
      s.evidence.push_back(std::move(ev));
    }
  if (auto it = j.find("gain"); it != j.end() && it->is_object())
    s.gain = EstimatedGain{it->value("speedup", 1.0), it->value("basis", std::string())};
  if (auto it = j.find("location"); it != j.end() && it->is_object()) {
    SourceLocation l;
    get(*it, "file", l.file);
    get(*it, "line", l.line);
    get(*it, "scope", l.scope);
    get(*it, "lines", l.lines);
    s.location = std::move(l);
  }
}

void to_json(json& j, const ProfileReport& r) {
  j = json{{"schema_version", ProfileReport::kSchemaVersion},
           {"device", r.device},
           {"spec", optional_json(r.spec)},
           {"ceilings", r.ceilings},
           {"measured_ceilings", optional_json(r.measured_ceilings)},
           {"task_dtype", r.task_dtype},
           {"compulsory_bytes", r.compulsory_bytes},
           {"candidate", r.candidate},
           {"reference", optional_json(r.reference)},
           {"sass", optional_json(r.sass)},
           {"suggestions", r.suggestions},
           {"overhead",
            {{"activity_seconds", r.overhead.activity_seconds},
             {"replay_seconds", r.overhead.replay_seconds},
             {"profile_seconds", r.overhead.profile_seconds}}},
           {"notes", r.notes},
           {"plot", optional_json(r.plot)}};
}

void from_json(const json& j, ProfileReport& r) {
  need_object(j, "profile");
  if (!j.contains("device")) throw std::runtime_error("profile: missing field 'device'");
  if (!j.contains("candidate")) throw std::runtime_error("profile: missing field 'candidate'");
  j.at("device").get_to(r.device);
  get(j, "spec", r.spec);
  get(j, "ceilings", r.ceilings);
  get(j, "measured_ceilings", r.measured_ceilings);
  get(j, "task_dtype", r.task_dtype);
  get(j, "compulsory_bytes", r.compulsory_bytes);
  j.at("candidate").get_to(r.candidate);
  get(j, "reference", r.reference);
  get(j, "sass", r.sass);
  get(j, "suggestions", r.suggestions);
  if (auto it = j.find("overhead"); it != j.end() && it->is_object()) {
    get(*it, "activity_seconds", r.overhead.activity_seconds);
    get(*it, "replay_seconds", r.overhead.replay_seconds);
    get(*it, "profile_seconds", r.overhead.profile_seconds);
  }
  get(j, "notes", r.notes);
  get(j, "plot", r.plot);
}

}  // namespace hone::protocol
