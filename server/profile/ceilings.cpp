// profile/ceilings.cpp: measured-ceiling records, their cache, and the ceiling precedence.
#include "profile/ceilings.h"

#include <cctype>
#include <stdexcept>

#include "support/hash.h"
#include "support/paths.h"

namespace hone::profile {

MeasuredCeilings measured_ceilings_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("device_name") || !j["device_name"].is_string())
    throw std::runtime_error("measured ceilings: expected an object with a device_name, got " + j.dump());
  MeasuredCeilings m;
  m.device_name = j["device_name"].get<std::string>();
  m.torch_version = j.value("torch_version", std::string());
  m.measured_at = j.value("measured_at", std::string());
  if (j.contains("dram_copy_bytes_per_s") && j["dram_copy_bytes_per_s"].is_number())
    m.dram_copy_bytes_per_s = j["dram_copy_bytes_per_s"].get<double>();
  if (j.contains("matmul_flops_per_s") && j["matmul_flops_per_s"].is_object())
    for (const auto& [name, value] : j["matmul_flops_per_s"].items()) {
      auto p = parse_precision(name);
      if (!p) throw std::runtime_error("measured ceilings: unknown precision '" + name + "'");
      if (value.is_number()) m.matmul_flops_per_s[*p] = value.get<double>();
    }
  m.details = j.value("details", nlohmann::json::object());
  return m;
}

nlohmann::json to_json(const MeasuredCeilings& m) {
  nlohmann::json flops = nlohmann::json::object();
  for (const auto& [p, v] : m.matmul_flops_per_s) flops[std::string(precision_name(p))] = v;
  nlohmann::json j = {{"device_name", m.device_name},
                      {"torch_version", m.torch_version},
                      {"measured_at", m.measured_at},
                      {"matmul_flops_per_s", flops},
                      {"details", m.details}};
  j["dram_copy_bytes_per_s"] = m.dram_copy_bytes_per_s ? nlohmann::json(*m.dram_copy_bytes_per_s) : nlohmann::json();
  return j;
}

std::filesystem::path ceilings_cache_path(std::string_view device_name) {
  std::string file;
  for (char c : device_name) file += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (file.empty()) file = "unknown";
  return cache_dir() / "ceilings" / (file + ".json");
}

std::optional<MeasuredCeilings> load_cached_ceilings(std::string_view device_name) {
  std::filesystem::path path = ceilings_cache_path(device_name);
  if (!std::filesystem::exists(path)) return std::nullopt;
  try {
    return measured_ceilings_from_json(nlohmann::json::parse(read_file(path)));
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache entry is measured again
  }
}

void store_cached_ceilings(const MeasuredCeilings& m) {
  std::filesystem::path path = ceilings_cache_path(m.device_name);
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, to_json(m).dump(2));
}

std::optional<Ceiling> Ceilings::flops_for(Precision p) const {
  auto it = flops_per_s.find(p);
  if (it == flops_per_s.end()) return std::nullopt;
  return it->second;
}

Ceilings effective_ceilings(const std::optional<GpuSpec>& spec, const std::optional<MeasuredCeilings>& measured,
                            std::optional<double> device_peak_dram_bytes_per_s) {
  Ceilings c;
  if (measured && measured->dram_copy_bytes_per_s)
    c.dram_bytes_per_s = Ceiling{*measured->dram_copy_bytes_per_s, "measured"};
  else if (spec && spec->peak_dram_bytes_per_s > 0)
    c.dram_bytes_per_s = Ceiling{spec->peak_dram_bytes_per_s, "spec"};
  else if (device_peak_dram_bytes_per_s)
    c.dram_bytes_per_s = Ceiling{*device_peak_dram_bytes_per_s, "device"};
  for (Precision p : kAllPrecisions) {
    if (measured) {
      auto it = measured->matmul_flops_per_s.find(p);
      if (it != measured->matmul_flops_per_s.end()) {
        c.flops_per_s[p] = Ceiling{it->second, "measured"};
        continue;
      }
    }
    if (spec)
      if (auto v = spec->peak_flops(p)) c.flops_per_s[p] = Ceiling{*v, "spec"};
  }
  return c;
}

nlohmann::json to_json(const Ceilings& c) {
  nlohmann::json j = nlohmann::json::object();
  if (c.dram_bytes_per_s) j["dram_bytes_per_s"] = {{"value", c.dram_bytes_per_s->value}, {"source", c.dram_bytes_per_s->source}};
  nlohmann::json flops = nlohmann::json::object();
  for (const auto& [p, v] : c.flops_per_s) flops[std::string(precision_name(p))] = {{"value", v.value}, {"source", v.source}};
  j["flops_per_s"] = flops;
  return j;
}

}  // namespace hone::profile
