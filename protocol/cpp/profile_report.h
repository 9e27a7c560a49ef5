// protocol/profile_report.h: hone profile's report (a verdict's `profile`) as C++ structs spelled
// like protocol/schema/profile.schema.json, with to_json/from_json: the device and its ceilings,
// the profiled calls (kernels, counters, derived metrics, roofline points) and the ranked
// suggestions. Built by hone_profile (the engine's profile call); read by the renderer
// (verdict_text.h), the language server, the optimizer's prompts and the store. Plain values.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/sass_counters.h"

namespace hone::protocol {

// Arithmetic precisions with a peak rate. "Tensor" precisions run on tensor cores (dense rates;
// structured sparsity doubles them and is never used as a ceiling).
enum class Precision { fp64, fp32, fp16, bf16, fp64_tensor, tf32_tensor, fp16_tensor, bf16_tensor, fp8_tensor, int8_tensor };

std::string_view precision_name(Precision p);  // "fp32", "bf16_tensor", ...
std::optional<Precision> parse_precision(std::string_view name);
inline constexpr Precision kAllPrecisions[] = {
    Precision::fp64,        Precision::fp32,        Precision::fp16,        Precision::bf16,
    Precision::fp64_tensor, Precision::tf32_tensor, Precision::fp16_tensor, Precision::bf16_tensor,
    Precision::fp8_tensor,  Precision::int8_tensor};

// What bounds a kernel on the roofline.
enum class Bound { memory, compute, latency };
std::string_view bound_name(Bound b);

// One row of the GPU spec table (hone_profile's gpu_specs.cpp). Rates are per second, bytes are
// bytes; 0 means "not published".
struct GpuSpec {
  std::string name;  // "NVIDIA H200 SXM 141GB"
  std::string key;   // short id for --gpu: "h200", "h100-sxm", ...
  std::string arch;  // "sm_90"
  std::string chip;  // CUPTI chip name: "GH100"
  int sm_count = 0;
  double boost_clock_hz = 0;  // the clock the datasheet rates assume
  double peak_dram_bytes_per_s = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint32_t shared_bytes_per_sm = 0;
  std::uint32_t shared_bytes_per_block = 0;  // opt-in maximum per block
  std::uint32_t registers_per_sm = 65536;
  std::uint32_t max_warps_per_sm = 64;
  std::uint32_t max_blocks_per_sm = 32;
  // Peak FLOP/s (integer ops/s for int8) per precision, dense.
  double fp64 = 0, fp32 = 0, fp16 = 0, bf16 = 0;
  double fp64_tensor = 0, tf32_tensor = 0, fp16_tensor = 0, bf16_tensor = 0, fp8_tensor = 0, int8_tensor = 0;
  std::string source;  // where the numbers come from

  // The peak for a precision; nullopt when the table has none (0).
  std::optional<double> peak_flops(Precision p) const;
};

// What a device reports about itself (the eval worker's `hello` devices[] entry): exact for the
// part in the machine, where the spec table is the nominal product.
struct DeviceFacts {
  int index = 0;
  std::string name;
  std::string arch;  // "sm_90"
  std::string uuid;  // "GPU-..." (empty when torch does not report it)
  int sm_count = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t memory_bytes = 0;
  std::uint32_t max_threads_per_sm = 0;
  std::uint32_t shared_bytes_per_sm = 0;
  std::uint32_t registers_per_sm = 0;
  std::uint64_t memory_clock_khz = 0;
  std::uint32_t memory_bus_bits = 0;
  std::uint64_t sm_clock_khz = 0;

  // 2 x memory clock x bus width / 8 (double data rate): the theoretical DRAM rate from the
  // device's own numbers; nullopt when the device did not report them.
  std::optional<double> theoretical_dram_bytes_per_s() const;
};

// What the worker's `measure_ceilings` measured: rates per second, read+write bytes counted for
// the copy.
struct MeasuredCeilings {
  std::string device_name;
  std::string torch_version;
  std::string measured_at;  // ISO 8601 UTC
  std::optional<double> dram_copy_bytes_per_s;
  std::map<Precision, double> matmul_flops_per_s;  // fp32, tf32_tensor, fp16_tensor, bf16_tensor, ...
  nlohmann::json details;  // sizes, repetitions, spreads as the worker reported them (shown, never read)
};

struct Ceiling {
  double value = 0;
  std::string source;  // "measured", "spec" (the table), "device" (CUPTI peak x clock)
};

struct Ceilings {
  std::optional<Ceiling> dram_bytes_per_s;
  std::map<Precision, Ceiling> flops_per_s;

  std::optional<Ceiling> flops_for(Precision p) const;
};

struct RooflinePoint {
  std::string label;
  double seconds = 0;
  double dram_bytes = 0;
  double flops = 0;                      // of `precision`, the precision that dominates the work
  std::optional<Precision> precision;    // absent: no floating-point work was counted
  double arithmetic_intensity = 0;       // FLOPs per DRAM byte
  double achieved_flops_per_s = 0;
  double achieved_bytes_per_s = 0;
  double peak_bytes_per_s = 0;
  double peak_flops_per_s = 0;           // 0 when there is no compute ceiling for the precision
  double ridge_intensity = 0;            // peak FLOP/s / peak bytes/s
  double memory_pct = 0;                 // achieved bytes/s as % of the memory ceiling
  double compute_pct = 0;                // achieved FLOP/s as % of the compute ceiling
  double pct_of_roofline = 0;            // achieved / attainable at this intensity (speed of light)
  Bound bound = Bound::latency;
  std::string dram_source, flops_source;  // where the ceilings came from
};

// One kernel launch as the CUPTI Activity API recorded it.
struct KernelLaunch {
  std::string name;     // demangled
  std::string mangled;  // not on the wire
  double duration_us = 0;
  std::array<int, 3> grid{1, 1, 1};
  std::array<int, 3> block{1, 1, 1};
  int registers_per_thread = 0;
  int static_shared_bytes = 0;   // the wire holds static + dynamic as shared_bytes
  int dynamic_shared_bytes = 0;
  int local_bytes_per_thread = 0;
  std::int64_t stream = 0;
  bool own = false;  // one of the candidate's own __global__ functions

  std::int64_t blocks() const { return std::int64_t{grid[0]} * grid[1] * grid[2]; }
  int threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// Counter values by canonical metric name (hone_cupti's names, e.g. "dram__bytes_read.sum").
using MetricValues = std::map<std::string, double>;

// Quantities derived from a kernel's counters; every field is absent when its counters were not
// collected. The clocks and the device peak are inputs of the rules, not on the wire.
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
  // The derived counters the wire carries, by name ("dram_bytes", "l2_hit_pct", ...), sorted by
  // name; absent ones left out (flops are separate).
  std::vector<std::pair<std::string_view, double>> named() const;
};

// A kernel with everything measured about it: its launch, its counters (empty when unavailable)
// and, in a report, its own roofline point.
struct ProfiledKernel {
  KernelLaunch record;
  MetricValues metrics;
  DerivedMetrics derived;
  std::optional<RooflinePoint> roofline;
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

// One profiled forward call in a report (the candidate's, or the reference's as the baseline).
struct CallProfile {
  std::vector<ProfiledKernel> kernels;  // launch order
  double own_us = 0;
  double library_us = 0;
  double copy_us = 0;
  double own_share = 0;  // own / (own + library + copies)
  CountersStatus counters;
  std::string match_note;  // set when counters could not be matched to kernels one to one
  std::optional<RooflinePoint> roofline;  // the call's kernels together
};

struct SuggestionEvidence {
  std::string metric;      // a counter name or a named fact ("theoretical_occupancy_pct")
  double value = 0;
  std::string comparison;  // "<", ">", "=="
  double threshold = 0;
  std::string unit;        // "%", "bytes", "blocks", ...
};

struct EstimatedGain {
  double speedup = 1;  // upper bound for the kernel (or the call) when the issue is fixed
  std::string basis;   // how it was estimated
};

struct SourceLocation {
  std::string file;
  int line = 0;
  // "kernel": the __global__ definition (counters are per kernel, not per line); "line": the
  // first of `lines`, the user-file lines (PTX `.loc`) of the instructions the rule is about.
  std::string scope;
  std::vector<int> lines;
};

struct Suggestion {
  std::string id;      // the rule: "uncoalesced_loads", ...
  std::string title;   // one line a person can act on
  std::string detail;  // why, and what to do
  std::string kernel;  // the kernel it is about; empty for the whole call
  std::vector<SuggestionEvidence> evidence;
  std::optional<EstimatedGain> gain;
  std::optional<SourceLocation> location;
  double saved_us = 0;  // estimated time saved, for ranking (0 when no gain is estimated)
};

struct ProfileOverhead {
  double activity_seconds = 0;  // wall time of the traced call
  double replay_seconds = 0;    // wall time of the counter replay pass
  double profile_seconds = 0;   // wall time of the whole profile request in the worker
};

struct ProfileReport {
  static constexpr int kSchemaVersion = 1;
  DeviceFacts device;
  std::optional<GpuSpec> spec;
  Ceilings ceilings;
  std::optional<MeasuredCeilings> measured_ceilings;
  std::string task_dtype;
  double compulsory_bytes = 0;  // the task's input + output bytes
  CallProfile candidate;
  std::optional<CallProfile> reference;
  // The candidate call's per-instruction counters (shown beside the SASS of the same build);
  // nullopt in reports that predate them.
  std::optional<SassCounters> sass;
  std::vector<Suggestion> suggestions;
  ProfileOverhead overhead;
  std::vector<std::string> notes;
  std::optional<std::string> plot;  // the SVG roofline plot's path, once written
};

// from_json throws std::runtime_error naming what is missing or malformed.
void to_json(nlohmann::json& j, const GpuSpec& v);
void from_json(const nlohmann::json& j, GpuSpec& v);
void to_json(nlohmann::json& j, const DeviceFacts& v);
void from_json(const nlohmann::json& j, DeviceFacts& v);  // the hello's devices[] entry; name required
void to_json(nlohmann::json& j, const MeasuredCeilings& v);
void from_json(const nlohmann::json& j, MeasuredCeilings& v);  // also the worker's measure_ceilings result
void to_json(nlohmann::json& j, const Ceilings& v);
void from_json(const nlohmann::json& j, Ceilings& v);
void to_json(nlohmann::json& j, const RooflinePoint& v);
void from_json(const nlohmann::json& j, RooflinePoint& v);
void to_json(nlohmann::json& j, const ProfiledKernel& v);
void from_json(const nlohmann::json& j, ProfiledKernel& v);
void to_json(nlohmann::json& j, const CountersStatus& v);
void from_json(const nlohmann::json& j, CountersStatus& v);
void to_json(nlohmann::json& j, const CallProfile& v);
void from_json(const nlohmann::json& j, CallProfile& v);
void to_json(nlohmann::json& j, const Suggestion& v);
void from_json(const nlohmann::json& j, Suggestion& v);
void to_json(nlohmann::json& j, const ProfileReport& v);
void from_json(const nlohmann::json& j, ProfileReport& v);

}  // namespace hone::protocol
