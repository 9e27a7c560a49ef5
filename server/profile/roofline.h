// profile/roofline.h: a kernel's (or a whole forward call's) position on the roofline: arithmetic
// intensity (FLOPs per DRAM byte), achieved FLOP/s and bytes/s against the ceilings, % of
// speed-of-light, and what bounds it. Pure functions; any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "profile/ceilings.h"
#include "profile/gpu_specs.h"

namespace hone::profile {

enum class Bound { memory, compute, latency };
std::string_view bound_name(Bound b);

// Below this share of both the memory and the compute ceiling a kernel is latency (or
// occupancy) bound: neither unit is busy enough for its roof to be the limit (Nsight Compute's
// speed-of-light guidance uses 60%).
inline constexpr double kBusyPct = 60.0;

struct RooflineInput {
  std::string label;  // "candidate", "reference", or a kernel name
  double seconds = 0;
  double dram_bytes = 0;
  std::map<Precision, double> flops;
};

struct RooflinePoint {
  std::string label;
  double seconds = 0;
  double dram_bytes = 0;
  double flops = 0;                      // of `precision`, the precision that dominates the work
  std::optional<Precision> precision;    // absent: no floating-point work was counted
  double arithmetic_intensity = 0;       // FLOPs per DRAM byte
  double achieved_flops_per_s = 0;
  double achieved_bytes_per_s = 0;
  double peak_bytes_per_s = 0;
  double peak_flops_per_s = 0;           // 0 when there is no compute ceiling for the precision
  double ridge_intensity = 0;            // peak FLOP/s / peak bytes/s
  double memory_pct = 0;                 // achieved bytes/s as % of the memory ceiling
  double compute_pct = 0;                // achieved FLOP/s as % of the compute ceiling
  double pct_of_roofline = 0;            // achieved / attainable at this intensity (speed of light)
  Bound bound = Bound::latency;
  std::string dram_source, flops_source;  // where the ceilings came from
};

// Nullopt when there is no DRAM ceiling or the time is not positive.
std::optional<RooflinePoint> roofline_point(const RooflineInput& in, const Ceilings& ceilings);

nlohmann::json to_json(const RooflinePoint& p);

}  // namespace hone::profile
