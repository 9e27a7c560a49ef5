// protocol/sass_counters.cpp: SassCounters <-> JSON, and from the worker's profile side.
#include "protocol/sass_counters.h"

#include <stdexcept>

namespace hone::protocol {

using nlohmann::json;

namespace {

template <class T>
void get(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

SassCounts values_of(const json& j) {
  SassCounts out;
  if (!j.is_object()) return out;
  for (const auto& [name, value] : j.items())
    if (value.is_number()) out[name] = value.get<std::uint64_t>();
  return out;
}

std::vector<SassKernel> kernels_of(const json& j) {
  std::vector<SassKernel> out;
  if (!j.is_array()) return out;
  for (const json& k : j) {
    if (!k.is_object() || !k.contains("function") || !k["function"].is_string())
      throw std::runtime_error("sass counters: a kernel without a function name: " + k.dump().substr(0, 200));
    SassKernel kernel;
    kernel.function = k["function"].get<std::string>();
    get(k, "cubin_crc", kernel.cubin_crc);
    if (auto it = k.find("instructions"); it != k.end() && it->is_array())
      for (const json& i : *it) {
        if (!i.is_object() || !i.contains("pc_offset") || !i["pc_offset"].is_number_unsigned())
          throw std::runtime_error("sass counters: an instruction without a pc_offset in " + kernel.function);
        kernel.instructions.push_back({i["pc_offset"].get<std::uint32_t>(), values_of(i.value("values", json::object()))});
      }
    out.push_back(std::move(kernel));
  }
  return out;
}

std::vector<OmittedMetric> omitted_of(const json& j) {
  std::vector<OmittedMetric> out;
  if (!j.is_array()) return out;
  for (const json& o : j)
    if (o.is_object()) out.push_back({o.value("name", std::string()), o.value("reason", std::string())});
  return out;
}

}  // namespace

SassCounters sass_counters_from_worker(const json& side, const std::string& why_absent) {
  SassCounters out;
  const json sass = side.is_object() ? side.value("sass", json()) : json();
  const json error = side.is_object() ? side.value("sass_error", json()) : json();
  if (sass.is_object()) {
    json counted = sass;
    counted.erase("available");  // hone_cupti's answer never has one; it is the report's flag
    out = counted.get<SassCounters>();
    out.available = true;
    return out;
  }
  out.available = false;
  if (error.is_object()) {
    out.code = error.value("code", std::string("cupti_error"));
    out.message = error.value("message", std::string("SASS counters could not be collected"));
  } else {
    out.code = "not_collected";
    out.message = why_absent;
  }
  return out;
}

void to_json(json& j, const SassCounters& v) {
  json kernels = json::array();
  for (const SassKernel& k : v.kernels) {
    json rows = json::array();
    for (const SassInstruction& i : k.instructions) rows.push_back({{"pc_offset", i.pc_offset}, {"values", i.values}});
    kernels.push_back({{"function", k.function}, {"cubin_crc", k.cubin_crc}, {"instructions", std::move(rows)}});
  }
  json omitted = json::array();
  for (const OmittedMetric& o : v.omitted) omitted.push_back({{"name", o.name}, {"reason", o.reason}});
  j = json{{"available", v.available},
           {"chip", v.chip},
           {"metrics", v.metrics},
           {"omitted", std::move(omitted)},
           {"kernels", std::move(kernels)},
           {"kernels_dropped", v.kernels_dropped},
           {"instructions_dropped", v.instructions_dropped},
           {"records_dropped", v.records_dropped}};
  if (!v.available) {
    j["code"] = v.code;
    j["message"] = v.message;
  }
}

void from_json(const json& j, SassCounters& v) {
  if (!j.is_object()) throw std::runtime_error("sass counters: expected an object, got " + j.dump().substr(0, 200));
  v = SassCounters{};
  get(j, "available", v.available);
  get(j, "code", v.code);
  get(j, "message", v.message);
  get(j, "chip", v.chip);
  get(j, "metrics", v.metrics);
  v.omitted = omitted_of(j.value("omitted", json::array()));
  v.kernels = kernels_of(j.value("kernels", json::array()));
  get(j, "kernels_dropped", v.kernels_dropped);
  get(j, "instructions_dropped", v.instructions_dropped);
  get(j, "records_dropped", v.records_dropped);
}

}  // namespace hone::protocol
