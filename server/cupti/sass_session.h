// cupti/sass_session.h: one SASS Metrics collection (cupti_sass_metrics.h, CUDA 12.4+): the
// chip's metric list, hone's preferred per-instruction metrics among them, SetConfig at GPU
// granularity, Enable with lazy patching (a kernel is patched at its first launch inside the
// recording), then GetDataProperties / FlushData / Disable / UnsetConfig at the end. Patched
// kernels run slower and differently, so this is a recording of its own, after the counters and
// the timed calls. Created and finished on the thread that runs the profiled work.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sass_table.h"

namespace hone::cupti {

struct SassRequest {
  std::vector<std::vector<std::string>> metrics = preferred_sass_metrics();
  std::size_t max_kernels = 8;
  std::size_t max_instructions = 65536;  // rows over all kernels
};

class SassSession {
 public:
  // Configures and enables collection on `ctx` (a context of CUDA device `device`). Throws
  // CuptiFailure with a plain reason when the GPU, the driver or the permissions do not allow it.
  SassSession(CUcontext ctx, int device, const SassRequest& request);
  ~SassSession();  // disables and unsets whatever is still on
  SassSession(const SassSession&) = delete;
  SassSession& operator=(const SassSession&) = delete;

  // Flushes the records (the caller has synchronised the context), disables and unsets:
  // {"chip", "granularity", "lazy_patching", "metrics", "omitted", "offered", "records",
  // "records_dropped", "kernels", "kernels_dropped", "instructions_dropped"} (sass_table.h).
  nlohmann::json finish();

 private:
  void start(const SassRequest& request);
  void stop();  // Disable and UnsetConfig, failures ignored (a failed start, a destructor)

  CUcontext ctx_;
  int device_;
  std::string chip_;
  std::vector<std::string> available_;
  SassMetricChoice choice_;
  std::map<std::uint64_t, std::string> ids_;
  std::size_t max_kernels_ = 0;
  std::size_t max_instructions_ = 0;
  bool configured_ = false;
  bool enabled_ = false;
};

}  // namespace hone::cupti
