// cupti/kernel_prologue.cpp: the launch callbacks behind KernelPrologue.
#include "kernel_prologue.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include <nlohmann/json.hpp>

#include "cupti_error.h"

namespace hone::cupti {
namespace {

std::atomic<std::uint64_t> g_generations{0};

// The leading parameters of the driver's launch functions as CUPTI passes them (the structs of
// generated_cuda_meta.h, which does not compile outside the driver's own build: CUdeviceptr_v1).
struct LaunchKernelParams {  // cuLaunchKernel(_ptsz), cuLaunchCooperativeKernel(_ptsz)
  CUfunction f;
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  CUstream stream;
};
struct LaunchKernelExParams {  // cuLaunchKernelEx(_ptsz)
  const CUlaunchConfig* config;
};
struct GraphLaunchParams {  // cuGraphLaunch(_ptsz)
  CUgraphExec graph;
  CUstream stream;
};
struct LaunchGridAsyncParams {  // cuLaunchGridAsync
  CUfunction f;
  int grid_width, grid_height;
  CUstream stream;
};

// A thread's nesting of launch calls (a runtime launch enters the driver's; the prologue's own
// launch nests in the launch it precedes), for one KernelPrologue (its generation).
struct Nesting {
  std::uint64_t generation = 0;
  int depth = 0;
  bool pending = false;  // inside a runtime launch whose stream is unknown, before its driver launch
};
thread_local Nesting t_nesting;

constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,          CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,       CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,          CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
};
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,           CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,       CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
};

// Stream 0 of a per-thread-default-stream launch is the thread's own stream.
void* per_thread(void* stream, bool ptsz) { return stream == nullptr && ptsz ? static_cast<void*>(CU_STREAM_PER_THREAD) : stream; }

template <typename Params>
const Params* params(const CUpti_CallbackData& d) {
  return static_cast<const Params*>(d.functionParams);
}

struct Launch {
  bool is_launch = false;
  bool graph = false;
  void* stream = nullptr;
  bool deferred = false;  // the stream is unknown here: the driver launch inside it runs the prologue
};

Launch runtime_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& d) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
      return {true, false, params<cudaLaunchKernel_v7000_params>(d)->stream};
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
      return {true, false, per_thread(params<cudaLaunchKernel_ptsz_v7000_params>(d)->stream, true)};
    // __cudaLaunchKernel (CUDA 13's <<<>>>): CUDA 13.0's headers give no parameter struct for it,
    // so its stream is not read here; the driver launch it makes runs the prologue.
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      return {true, false, nullptr, true};
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060: {
      const cudaLaunchConfig_t* c = params<cudaLaunchKernelExC_v11060_params>(d)->config;
      return {true, false, c ? c->stream : nullptr};
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const cudaLaunchConfig_t* c = params<cudaLaunchKernelExC_ptsz_v11060_params>(d)->config;
      return {true, false, per_thread(c ? c->stream : nullptr, true)};
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
      return {true, true, params<cudaGraphLaunch_v10000_params>(d)->stream};
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
      return {true, true, per_thread(params<cudaGraphLaunch_ptsz_v10000_params>(d)->stream, true)};
    default:
      return {};
  }
}

Launch driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& d) {
  const bool ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                    cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
                    cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return {true, false, per_thread(params<LaunchKernelParams>(d)->stream, ptsz)};
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* c = params<LaunchKernelExParams>(d)->config;
      return {true, false, per_thread(c ? c->hStream : nullptr, ptsz)};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      return {true, true, per_thread(params<GraphLaunchParams>(d)->stream, ptsz)};
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync: return {true, false, params<LaunchGridAsyncParams>(d)->stream};
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunch: return {true, false, nullptr};
    default:
      return {};
  }
}

void CUPTIAPI callback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) && data)
    static_cast<KernelPrologue*>(self)->on_launch(domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
}

}  // namespace

KernelPrologue::KernelPrologue() : generation_(++g_generations) {
  check(cuptiSubscribe(&subscriber_, callback, this), "cuptiSubscribe");
  try {
    for (CUpti_CallbackId id : kRuntimeLaunches)
      check(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API, id), "cuptiEnableCallback (runtime launch)");
    for (CUpti_CallbackId id : kDriverLaunches)
      check(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id), "cuptiEnableCallback (driver launch)");
  } catch (...) {
    cuptiUnsubscribe(subscriber_);
    throw;
  }
}

KernelPrologue::~KernelPrologue() {
  disarm();
  cuptiEnableAllDomains(0, subscriber_);
  cuptiUnsubscribe(subscriber_);
}

void KernelPrologue::arm(PrologueFn fn, void* user) {
  user_.store(user);
  fn_.store(fn);
}

void KernelPrologue::disarm() { fn_.store(nullptr); }

void KernelPrologue::on_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  const bool without_params = !data.functionParams;
  if (without_params && runtime && cbid != CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 &&
      cbid != CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000)
    return;  // no stream to read: the driver launch inside it runs the prologue (or it is missed)
  if (without_params && !runtime && cbid != CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid && cbid != CUPTI_DRIVER_TRACE_CBID_cuLaunch)
    return;
  const Launch launch = runtime ? runtime_launch(cbid, data) : driver_launch(cbid, data);
  if (!launch.is_launch) return;
  if (t_nesting.generation != generation_) t_nesting = {generation_, 0, false};
  if (launch.deferred) {
    if (t_nesting.depth > 0) return;  // inside an outer launch, or the prologue's own
    if (data.callbackSite == CUPTI_API_ENTER) {
      t_nesting.pending = fn_.load() != nullptr;
    } else if (t_nesting.pending) {  // no driver launch came inside it: a kernel went unflushed
      t_nesting.pending = false;
      missed_.fetch_add(1);
    }
    return;
  }
  if (data.callbackSite == CUPTI_API_EXIT) {
    if (t_nesting.depth > 0) --t_nesting.depth;
    return;
  }
  if (t_nesting.depth++ > 0) return;  // inside an outer launch, or the prologue's own
  t_nesting.pending = false;           // the driver launch a deferred runtime launch makes: this one
  const PrologueFn fn = fn_.load();
  if (!fn) return;
  launches_.fetch_add(1);
  if (launch.graph) graphs_.fetch_add(1);
  if (const int code = fn(launch.stream, user_.load()); code != 0) {
    int none = 0;
    first_failure_.compare_exchange_strong(none, code);
    failures_.fetch_add(1);
  }
}

nlohmann::json KernelPrologue::summary() const {
  return {{"launches", launches_.load()}, {"failures", failures_.load()}, {"first_failure", first_failure_.load()},
          {"graphs", graphs_.load()}, {"missed", missed_.load()}};
}

}  // namespace hone::cupti
