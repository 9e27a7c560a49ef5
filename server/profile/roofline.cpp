// profile/roofline.cpp: roofline arithmetic (Williams, Waterman, Patterson 2009) with Nsight
// Compute's speed-of-light bound classification.
#include "profile/roofline.h"

#include <algorithm>

namespace hone::profile {

std::optional<RooflinePoint> roofline_point(const RooflineInput& in, const Ceilings& ceilings) {
  if (!ceilings.dram_bytes_per_s || ceilings.dram_bytes_per_s->value <= 0 || in.seconds <= 0) return std::nullopt;
  RooflinePoint p;
  p.label = in.label;
  p.seconds = in.seconds;
  p.dram_bytes = in.dram_bytes;
  p.peak_bytes_per_s = ceilings.dram_bytes_per_s->value;
  p.dram_source = ceilings.dram_bytes_per_s->source;
  p.achieved_bytes_per_s = in.dram_bytes / in.seconds;
  p.memory_pct = 100.0 * p.achieved_bytes_per_s / p.peak_bytes_per_s;

  // The dominant precision: the one whose work takes the longest at its own peak.
  double longest = -1;
  for (const auto& [prec, flops] : in.flops) {
    if (flops <= 0) continue;
    auto ceiling = ceilings.flops_for(prec);
    double t = ceiling ? flops / ceiling->value : 0;
    if (t > longest) {
      longest = t;
      p.precision = prec;
      p.flops = flops;
      p.peak_flops_per_s = ceiling ? ceiling->value : 0;
      p.flops_source = ceiling ? ceiling->source : "";
    }
  }
  p.achieved_flops_per_s = p.flops / in.seconds;
  p.arithmetic_intensity = in.dram_bytes > 0 ? p.flops / in.dram_bytes : 0;
  if (p.peak_flops_per_s > 0) {
    p.compute_pct = 100.0 * p.achieved_flops_per_s / p.peak_flops_per_s;
    p.ridge_intensity = p.peak_flops_per_s / p.peak_bytes_per_s;
    double attainable = std::min(p.peak_flops_per_s, p.arithmetic_intensity * p.peak_bytes_per_s);
    p.pct_of_roofline = attainable > 0 ? 100.0 * p.achieved_flops_per_s / attainable : p.memory_pct;
  } else {
    p.pct_of_roofline = p.memory_pct;
  }
  if (std::max(p.memory_pct, p.compute_pct) < kBusyPct)
    p.bound = Bound::latency;
  else
    p.bound = p.memory_pct >= p.compute_pct ? Bound::memory : Bound::compute;
  return p;
}

}  // namespace hone::profile
