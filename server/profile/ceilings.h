// profile/ceilings.h: the roofline's ceilings. Measured once per GPU by the eval worker's
// `measure_ceilings` (device-to-device copy bandwidth, a large matmul's rate per dtype) and
// cached on disk; the spec table and the device's own counters fill what was not measured.
// Used by the engine's profile call, `hone specs` and the roofline; any thread (the cache file
// is written atomically).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "profile/gpu_specs.h"

namespace hone::profile {

// What the worker measured: rates per second, read+write bytes counted for the copy.
struct MeasuredCeilings {
  std::string device_name;
  std::string torch_version;
  std::string measured_at;  // ISO 8601 UTC
  std::optional<double> dram_copy_bytes_per_s;
  std::map<Precision, double> matmul_flops_per_s;  // fp32, tf32_tensor, fp16_tensor, bf16_tensor, ...
  nlohmann::json details;  // sizes, repetitions, spreads as the worker reported them
};

// Reads the worker's measure_ceilings result; throws std::runtime_error for a malformed one.
MeasuredCeilings measured_ceilings_from_json(const nlohmann::json& j);
nlohmann::json to_json(const MeasuredCeilings& m);

// cache_dir()/ceilings/<device name as a file name>.json
std::filesystem::path ceilings_cache_path(std::string_view device_name);
std::optional<MeasuredCeilings> load_cached_ceilings(std::string_view device_name);
void store_cached_ceilings(const MeasuredCeilings& m);

struct Ceiling {
  double value = 0;
  std::string source;  // "measured", "spec" (the table), "device" (CUPTI peak x clock)
};

struct Ceilings {
  std::optional<Ceiling> dram_bytes_per_s;
  std::map<Precision, Ceiling> flops_per_s;

  std::optional<Ceiling> flops_for(Precision p) const;
};

// Measured first, then the spec table, then the device's counter peak (DRAM only).
Ceilings effective_ceilings(const std::optional<GpuSpec>& spec, const std::optional<MeasuredCeilings>& measured,
                            std::optional<double> device_peak_dram_bytes_per_s);

nlohmann::json to_json(const Ceilings& c);

}  // namespace hone::profile
