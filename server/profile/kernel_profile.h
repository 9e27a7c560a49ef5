// profile/kernel_profile.h: what one profiled forward call is made of, parsed from the eval
// worker's `profile` result: the kernels (CUPTI Activity records), their hardware counters
// (Range Profiler, one range per kernel launch, matched by launch order), copies and sets, and
// the derived quantities the roofline and the rules read (DRAM bytes, FLOPs by precision, ...).
// Plain values; built by the engine's profile call, read on any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/gpu_specs.h"

namespace hone::profile {

using protocol::MetricValues;
using protocol::KernelLaunch;
using protocol::DerivedMetrics;

DerivedMetrics derive(const MetricValues& values);

using protocol::ProfiledKernel;

struct CopyRecord {
  std::string kind;  // "htod", "dtoh", "dtod", "memset", ...
  std::int64_t bytes = 0;
  double duration_us = 0;
};

using protocol::CountersStatus;

// One profiled forward call (the candidate's, or the reference's as the baseline).
struct ProfiledCall {
  std::vector<ProfiledKernel> kernels;  // launch order
  std::vector<CopyRecord> copies;
  CountersStatus counters;
  std::string match_note;  // set when counters could not be matched to kernels one to one
  double activity_seconds = 0;  // wall time of the traced call
  double replay_seconds = 0;    // wall time of the counter replay pass

  double own_us() const;
  double library_us() const;
  double copy_us() const;
};

// Parses one side ("candidate" or "reference") of the worker's profile result. `own_kernels`
// are the candidate's __global__ names (matched against demangled names without arguments).
// Throws std::runtime_error naming the malformed field.
ProfiledCall parse_profiled_call(const nlohmann::json& side, const std::vector<std::string>& own_kernels);

// "relu_kernel(float const*, float*, long)" -> "relu_kernel"; "void ns::k<128>(...)" -> "ns::k<128>".
std::string base_kernel_name(const std::string& demangled);

}  // namespace hone::profile
