// cupti/range_session.h: one Range Profiler collection (cupti_range_profiler.h, CUDA 12.6u2+):
// auto range (one range per kernel launch) with kernel replay, so CUPTI saves and restores
// device memory around each replayed kernel and a kernel with side effects runs correctly.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host_config.h"

struct CUpti_RangeProfiler_Object;

namespace hone::cupti {

struct RangeRequest {
  std::string set;  // "default", "full" or "custom"
  std::vector<MetricChoice> candidates;
  std::size_t max_passes = 2;
  std::size_t max_ranges = 1024;  // kernels per call; SetConfig is reported to fail above ~2000
};

class RangeSession {
 public:
  // Prepares everything (chip, counter availability, config, counter data, the range profiler
  // enabled and configured on `ctx`, a context of CUDA device `device`) without collecting yet:
  // start() begins. Throws CuptiFailure with a plain reason when counters are unavailable
  // (privileges, another profiler, unsupported GPU).
  RangeSession(CUcontext ctx, int device, const RangeRequest& request);
  ~RangeSession();

  // Starts collecting (once): every kernel launched on the context from now is a range.
  void start();
  RangeSession(const RangeSession&) = delete;
  RangeSession& operator=(const RangeSession&) = delete;

  // Stops, decodes and evaluates: {"chip", "set", "passes", "collected", "omitted",
  // "ranges_dropped", "ranges": [{"index", "name", "values": {...}}]}.
  nlohmann::json finish();

  // Seconds of each part of the set-up: initialize (profiler, support, chip), availability,
  // config_image (the host's metric configuration), enable, counter_data, set_config, and
  // start once started.
  const nlohmann::json& setup_stages() const { return stages_; }

 private:
  void prepare(CUcontext ctx, int device, const RangeRequest& request);
  void disable();

  std::string chip_;
  std::string set_;
  PackedMetrics metrics_;
  std::vector<std::uint8_t> counter_data_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  bool started_ = false;
  nlohmann::json stages_ = nlohmann::json::object();
};

// Which profiling API a device must support.
enum class ProfilerApi { RangeProfiling, SassMetrics };

// cuptiProfilerDeviceSupported for `api`; throws CuptiFailure("not_supported") saying which part
// of the configuration (architecture, vGPU, SLI, confidential computing, CMP, WSL) prevents it.
void require_profiler_support(int device, ProfilerApi api);

// cuptiProfilerInitialize once per process (before any chip query: the reverse order crashes
// inside CUPTI 13.0), then the chip name of a device ("GH100").
std::string chip_name(int device);

}  // namespace hone::cupti
