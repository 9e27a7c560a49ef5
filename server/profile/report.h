// profile/report.h: turns the eval worker's `profile` result into hone's profile report
// (protocol/profile_report.h, a verdict's "profile"): kernel tables, counters, roofline
// points of the candidate and its baseline, ranked suggestions, and the SVG roofline plot (the
// text is protocol/verdict_text.h's). Called by the engine's profile call; pure, any thread.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/ceilings.h"
#include "profile/gpu_specs.h"
#include "protocol/build_report.h"

namespace hone::profile {

struct ProfileInputs {
  nlohmann::json worker_result;          // {"candidate": {...}, "reference": {...}|null, ...}
  std::vector<std::string> own_kernels;  // the candidate's __global__ names
  const protocol::CompileReport* compile = nullptr;  // static facts per kernel; may be null
  std::string kernel_file;               // for source locations
  // The build's PTX (built with -lineinfo), for the lines of the instructions a suggestion is
  // about; empty: kernel.ptx beside compile->library (the build cache keeps it there).
  std::filesystem::path ptx;
  DeviceFacts device;
  std::optional<MeasuredCeilings> measured;
  double compulsory_bytes = 0;           // the task's input + output bytes
  std::string task_dtype;                // "float32", "bfloat16", ...
  std::string sandbox_mode;              // the verdict's sandbox.mode: "namespaces", "bwrap", "none"; empty: unknown
};

struct ProfileOutput {
  protocol::ProfileReport report;  // `plot` is left for the caller to fill with the SVG's path
  std::string svg;                 // empty when no roofline point could be placed
};

// Throws std::runtime_error when the worker result is malformed.
ProfileOutput build_profile_report(const ProfileInputs& in);

}  // namespace hone::profile
