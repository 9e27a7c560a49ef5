// cupti/activity_trace.h: records every kernel, memcpy and memset of a code region with the
// CUPTI Activity API (CONCURRENT_KERNEL keeps kernels concurrent). Durations come from the GPU's
// own timestamps; no counters, no replay, no special privileges.
#pragma once

#include <nlohmann/json.hpp>

namespace hone::cupti {

// Enables recording; throws CuptiFailure. One trace at a time per process.
void activity_start();
// Flushes and disables recording; returns {"kernels": [...], "memcpys": [...], "memsets": [...],
// "dropped_records": n}, each list in start-time order. The caller synchronises the device first.
nlohmann::json activity_stop();

}  // namespace hone::cupti
