// profile/ceilings.cpp: measured-ceiling records, their cache, and the ceiling precedence.
#include "profile/ceilings.h"

#include <cctype>

#include "support/hash.h"
#include "support/paths.h"

namespace hone::profile {

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
    return nlohmann::json::parse(read_file(path)).get<MeasuredCeilings>();
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache entry is measured again
  }
}

void store_cached_ceilings(const MeasuredCeilings& m) {
  std::filesystem::path path = ceilings_cache_path(m.device_name);
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, nlohmann::json(m).dump(2));
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

}  // namespace hone::profile
