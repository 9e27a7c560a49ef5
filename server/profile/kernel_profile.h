// profile/kernel_profile.h: what one profiled forward call is made of, parsed from the eval
// worker's `profile` result: the kernels (CUPTI Activity records), their hardware counters
// (Range Profiler, one range per kernel launch, matched by launch order), copies and sets, and
// the derived quantities the roofline and the rules read (DRAM bytes, FLOPs by precision, ...).
// Plain values; built by the engine's profile call, read on any thread.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/gpu_specs.h"

namespace hone::profile {

// Counter values by canonical metric name (hone_cupti's names, e.g. "dram__bytes_read.sum").
using MetricValues = std::map<std::string, double>;

struct KernelRecord {
  std::string name;     // demangled
  std::string mangled;
  double duration_us = 0;
  std::array<int, 3> grid{1, 1, 1};
  std::array<int, 3> block{1, 1, 1};
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  int local_bytes_per_thread = 0;
  std::int64_t stream = 0;
  bool own = false;  // one of the candidate's own __global__ functions

  std::int64_t blocks() const { return std::int64_t{grid[0]} * grid[1] * grid[2]; }
  int threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// Derived from MetricValues; every field is absent when its counters were not collected.
struct DerivedMetrics {
  std::optional<double> dram_read_bytes, dram_write_bytes;
  std::map<Precision, double> flops;  // FP32 = fadd + fmul + 2 ffma, ...; tensor: math ops
  std::optional<double> global_load_efficiency_pct;   // bytes used per 32-byte sector loaded
  std::optional<double> global_store_efficiency_pct;
  std::optional<double> shared_wavefronts_per_request;  // 1 = conflict-free (32-bit accesses)
  std::optional<double> divergent_branch_pct;           // branch targets taken by part of a warp
  std::optional<double> local_memory_instructions;      // LDL + STL executed (spills, local arrays)
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> tensor_instructions;
  std::optional<double> sm_clock_hz, dram_clock_hz;
  std::optional<double> device_peak_dram_bytes_per_s;   // dram__bytes.sum.peak_sustained x clock
  std::optional<double> l1_hit_pct, l2_hit_pct;
  std::optional<double> active_threads_per_instruction;  // 32 = no divergence or predication

  std::optional<double> dram_bytes() const;
  double total_flops() const;
};

DerivedMetrics derive(const MetricValues& values);

// A kernel with everything measured about it.
struct ProfiledKernel {
  KernelRecord record;
  MetricValues metrics;  // empty when counters were unavailable
  DerivedMetrics derived;
};

struct CopyRecord {
  std::string kind;  // "htod", "dtoh", "dtod", "memset", ...
  std::int64_t bytes = 0;
  double duration_us = 0;
};

// Why counters are missing, in the user's words; empty `code` when they were collected.
struct CountersStatus {
  bool available = false;
  std::string source;  // "cupti" or "ncu"
  std::string code;    // "insufficient_privileges", "hardware_busy", "no_device", ...
  std::string message;
  std::string chip;
  std::string set;
  int passes = 0;
  std::vector<std::string> omitted;  // metrics of the set left out (not on this chip, pass budget)
};

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

nlohmann::json to_json(const ProfiledKernel& k);

}  // namespace hone::profile
