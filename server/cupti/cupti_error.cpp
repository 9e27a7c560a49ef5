// cupti/cupti_error.cpp: CUPTI results to stable codes and messages a user can act on.
#include "cupti_error.h"

namespace hone::cupti {
namespace {

std::string hint_for(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "GPU performance counters are restricted to administrators on this machine "
             "(driver option NVreg_RestrictProfilingToAdminUsers=1; in a container the host must "
             "allow profiling): run as root or ask an administrator to enable counters for all "
             "users, see https://developer.nvidia.com/ERR_NVGPUCTRPERM";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "another profiler holds this GPU's counters (ncu, nsys, another CUPTI process, "
             "DCGM profiling metrics): stop it and retry";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another CUPTI client is active in this process (e.g. torch.profiler/kineto)";
    case CUPTI_ERROR_NOT_INITIALIZED:
      return "CUPTI could not initialise: no NVIDIA driver or GPU, or a CUPTI newer than the driver";
    default:
      return "";
  }
}

}  // namespace

std::string code_for(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "insufficient_privileges";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "hardware_busy";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return "not_supported";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "multiple_subscribers";
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return "invalid_metric";
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_INVALID_CONTEXT:
      return "no_device";
    default:
      return "cupti_error";
  }
}

void check(CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS) name = nullptr;
  if (cuptiGetErrorMessage(r, &text) != CUPTI_SUCCESS) text = nullptr;
  std::string msg = std::string(call) + " failed: " + (name ? name : "CUPTI error " + std::to_string(r));
  if (text && *text) msg += " (" + std::string(text) + ")";
  std::string hint = hint_for(r);
  if (!hint.empty()) msg += ": " + hint;
  throw CuptiFailure(code_for(r), call, msg);
}

void fail(const std::string& code, const std::string& call, const std::string& message) {
  throw CuptiFailure(code, call, message);
}

}  // namespace hone::cupti
