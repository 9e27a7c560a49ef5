// profile/roofline.h: a kernel's (or a whole forward call's) position on the roofline: arithmetic
// intensity (FLOPs per DRAM byte), achieved FLOP/s and bytes/s against the ceilings, % of
// speed-of-light, and what bounds it. Pure functions; any thread.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "profile/ceilings.h"
#include "profile/gpu_specs.h"

namespace hone::profile {

using protocol::Bound;
using protocol::bound_name;

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

using protocol::RooflinePoint;

// Nullopt when there is no DRAM ceiling or the time is not positive.
std::optional<RooflinePoint> roofline_point(const RooflineInput& in, const Ceilings& ceilings);

}  // namespace hone::profile
