// profile/ceilings.h: the roofline's ceilings. Measured once per GPU by the eval worker's
// `measure_ceilings` (device-to-device copy bandwidth, a large matmul's rate per dtype) and
// cached on disk; the spec table and the device's own counters fill what was not measured.
// Used by the engine's profile call, `hone specs` and the roofline; any thread (the cache file
// is written atomically).
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

#include "profile/gpu_specs.h"

namespace hone::profile {

using protocol::MeasuredCeilings;

// cache_dir()/ceilings/<device name as a file name>.json
std::filesystem::path ceilings_cache_path(std::string_view device_name);
std::optional<MeasuredCeilings> load_cached_ceilings(std::string_view device_name);
void store_cached_ceilings(const MeasuredCeilings& m);

using protocol::Ceiling;
using protocol::Ceilings;

// Measured first, then the spec table, then the device's counter peak (DRAM only).
Ceilings effective_ceilings(const std::optional<GpuSpec>& spec, const std::optional<MeasuredCeilings>& measured,
                            std::optional<double> device_peak_dram_bytes_per_s);

}  // namespace hone::profile
