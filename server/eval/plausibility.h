// eval/plausibility.h: the checks that judge a correct kernel's timing against physics and the
// reference: compulsory bytes, the physical floor (bytes / peak DRAM bandwidth), speedups, and
// the thresholds that reject or re-check a result. Pure functions, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/verdict.h"

namespace hone::eval {

// A speedup above this (over eager or compiled PyTorch) is re-verified with more seeds and flagged.
inline constexpr double kRecheckSpeedup = 10.0;

// Bytes of one element of a dtype as the worker names it ("float32", "bfloat16", ...); 0 if unknown.
int dtype_bytes(const std::string& dtype);

// The bytes any implementation must move at least once: every input and parameter tensor read,
// every output written. Scalars count nothing. nullopt when a tensor's dtype or shape is unknown.
std::optional<double> compulsory_bytes(const protocol::Signature& signature);

// bytes / peak: the time below which no implementation can have read its inputs and written its
// outputs from DRAM.
protocol::Floor physical_floor(double bytes, double peak_dram_bytes_per_s);

// The reason text when a measured time (the call time, or the device time where there is one)
// beats the floor, nullopt when neither does.
std::optional<std::string> below_floor_reason(const protocol::Timing& timing, const protocol::Floor& floor);

// Which baselines the worker called noisy for a reason their spread does not show (a busy machine):
// their speedups are ranges too.
struct FlaggedBaselines {
  bool eager = false;
  bool compile = false;
};

// Speedups of `timing` over the baselines in one time on both sides (device time when all have it,
// else call time; the call-time speedups too when the basis is device time): p50 over p50 when
// both sides are quiet and the baseline is not flagged, else a range from both sides' p10..p90;
// absent when a baseline is.
protocol::Speedup speedups(const protocol::Timing& timing, const protocol::Baselines& baselines,
                           FlaggedBaselines flagged = {});

}  // namespace hone::eval
