// protocol/sass_counters.h: per-instruction counters of a profiled candidate call (a profile
// report's `sass`, protocol/schema/profile.schema.json's sass_counters), as CUPTI's SASS Metrics
// API counted them in a call of its own after every other measurement, and the machine-code
// view's counters beside each SASS line (lsp.schema.json's MachineCode). Built by hone_profile
// from the worker's result; read by the engine (the SASS view) and the renderers. Plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::protocol {

// Counts by SASS metric name ("smsp__sass_inst_executed": warp-level instructions executed).
using SassCounts = std::map<std::string, std::uint64_t>;

struct SassInstruction {
  std::uint32_t pc_offset = 0;  // bytes from the function's first instruction: nvdisasm's /*0040*/
  SassCounts values;
};

struct SassKernel {
  std::string function;         // mangled, as CUPTI names it ("_Z4reluPKfPfi")
  std::uint32_t cubin_crc = 0;  // CUPTI's CRC of the module's cubin
  std::vector<SassInstruction> instructions;  // by pc_offset
};

struct OmittedMetric {
  std::string name;
  std::string reason;
};

struct SassCounters {
  bool available = false;
  std::string code;     // why they are missing: "insufficient_privileges", "not_supported", "no_device", ...
  std::string message;  // in the user's words; empty when available
  std::string chip;     // "GH100"
  std::vector<std::string> metrics;     // collected, in hone's order of preference
  std::vector<OmittedMetric> omitted;   // preferred ones this GPU does not offer
  std::vector<SassKernel> kernels;      // the candidate call's kernels, first launched first
  std::int64_t kernels_dropped = 0;       // kernels past the bound
  std::int64_t instructions_dropped = 0;  // instruction rows past the bound
  std::int64_t records_dropped = 0;       // records CUPTI dropped
};

// The per-instruction counters of the eval worker's profile SIDE (protocol/WORKER.md): its "sass"
// (hone_cupti's sass answer) or, when counting failed, its "sass_error"; unavailable with
// `why_absent` as the message when the side has neither. Throws std::runtime_error when malformed.
SassCounters sass_counters_from_worker(const nlohmann::json& side, const std::string& why_absent);

void to_json(nlohmann::json& j, const SassCounters& v);
void from_json(const nlohmann::json& j, SassCounters& v);  // throws std::runtime_error when malformed

}  // namespace hone::protocol
